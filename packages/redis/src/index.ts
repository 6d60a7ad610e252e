export { resolveRedis, createRedisClient, REPO_ROOT } from './resolve.js';
export type { RedisHandle, ResolveRedisOptions } from './resolve.js';
export { startLocalRedis, pingRedis, freePort } from './local-server.js';
export type { LocalRedis } from './local-server.js';
export { ensureRedisServer, findRedisServer, planRedisInstall, RedisUnavailableError } from './install.js';
export type { HostFacts, InstallPlan } from './install.js';
export { testRedis, uniquePrefix } from './testing.js';
