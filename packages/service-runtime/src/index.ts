export { type HealthServer, startHealthServer } from "./health-server.js";
export { onShutdown } from "./shutdown.js";
