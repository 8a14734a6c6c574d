export { freePort, waitForPort } from "./free-port.js";
export { type LocalNats, type StartNatsOptions, startNats, stopChild } from "./nats.js";
export { type LocalPostgres, type StartPostgresOptions, startPostgres } from "./postgres.js";
export { ensureDebianPackage, findExecutable } from "./system-package.js";
