/**
 * Redis for tests: one real server per test run (REDIS_URL, set by the test command), or a
 * local one in `.data/redis-test` when a test file is run alone. With
 * `SWITCHYARD_TEST_REDIS=cluster` and no REDIS_URL, a local 3-master Redis Cluster instead; with
 * `container` or `container-cluster`, the same from containers (testcontainers, a Docker engine).
 * Each test names its own key prefix so that tests running in parallel never see each other's keys.
 */
import { randomUUID } from 'node:crypto';
import { REPO_ROOT, resolveRedis, type RedisHandle } from './resolve.js';

let shared: Promise<RedisHandle> | undefined;

/** The Redis a test run asked for with SWITCHYARD_TEST_REDIS: `cluster`, `container`, `container-cluster`, or unset (one local server). */
export function testRedisMode(value = process.env.SWITCHYARD_TEST_REDIS): { cluster: boolean; container: boolean } {
  const mode = value ?? '';
  if (!['', 'local', 'cluster', 'container', 'container-cluster'].includes(mode)) {
    throw new Error(`SWITCHYARD_TEST_REDIS must be cluster, container or container-cluster, got ${mode}`);
  }
  return { cluster: mode.endsWith('cluster'), container: mode.startsWith('container') };
}

/** True when this test run asked for a Redis Cluster (`SWITCHYARD_TEST_REDIS=cluster` or `container-cluster`). */
export function testWantsCluster(): boolean {
  return testRedisMode().cluster;
}

/** The test run's Redis; resolved once per process. */
export function testRedis(): Promise<RedisHandle> {
  shared ??= resolveRedis({ url: process.env.REDIS_URL, dataDir: `${REPO_ROOT}.data/redis-test`, ...testRedisMode() });
  return shared;
}

/**
 * A key prefix no other test uses, e.g. `{t:tool-client:3f2a…}`: hash-tagged, as a prefix must be
 * on a Redis Cluster, so that the same test runs on one Redis and on a cluster.
 */
export function uniquePrefix(label: string): string {
  return `{t:${label}:${randomUUID().slice(0, 8)}}`;
}
