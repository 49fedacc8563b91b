/** The server package's public API, for the CLI, tests and anyone embedding the server. */
export { loadConfig, ConfigError, type Config } from './config';
export { connect, database, Database, migrate } from './db';
export { createApp, type AppOptions } from './http/app';
export type { AppDeps } from './http/deps';
export { createLogger } from './http/logging';
export { startServer, type RunningServer, type StartOptions } from './server';
export { authenticate } from './api-keys/authenticate';
export { KeyRuleError } from './api-keys/errors';
export { createKey, rotateKey, revokeKey, listKeys } from './api-keys/lifecycle';
export { keyJson } from './api-keys/present';
export { Problem, problems } from './common/problem';
export { openApiDocument } from './openapi/document';
