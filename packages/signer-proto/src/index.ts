export * from "./approval.js";
export * from "./gen/gateway/signer/v1/signer_pb.js";
export * from "./mode.js";
