export { type HealthServer, startHealthServer } from "./health-server.js";
export { type OpenService, openService } from "./open-service.js";
export { onShutdown } from "./shutdown.js";
