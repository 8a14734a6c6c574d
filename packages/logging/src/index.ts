export { createLogger, type Logger, type LoggerOptions, REDACTED_PATHS } from "./logger.js";
