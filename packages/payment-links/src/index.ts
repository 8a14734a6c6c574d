export * from "./link.js";
export * from "./link-rows.js";
