export { type HealthServer, type HealthServerOptions, startHealthServer } from "./health-server.js";
export { type OpenService, openService } from "./open-service.js";
export { onShutdown } from "./shutdown.js";
