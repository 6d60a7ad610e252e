/**
 * A run store and run aborts on the test Redis, for tests that run stages directly (runStage):
 * opened before the file's tests and closed after them.
 */
import { after, before } from 'node:test';
import type { Redis } from 'ioredis';
import { createLogger } from '@switchyard/logger';
import { RunStore } from '@switchyard/pipeline';
import { createRedisClient, testRedis, uniquePrefix } from '@switchyard/redis';
import { RunAborts } from '../run-aborts.js';
import type { StageDeps } from '../stage-runner.js';

export interface StageFixture {
  readonly redis: Redis;
  readonly store: RunStore;
  readonly aborts: RunAborts;
  /** What runStage needs, with a silent logger. */
  deps(): StageDeps;
}

/** Registers the before and after hooks of a file whose stages write under a key prefix named `label`. */
export function stageFixture(label: string): StageFixture {
  let opened: { redis: Redis; store: RunStore; aborts: RunAborts } | undefined;
  const get = () => {
    if (!opened) throw new Error('the stage fixture is used before its before hook ran');
    return opened;
  };
  before(async () => {
    const { url } = await testRedis();
    const redis = createRedisClient(url);
    const store = new RunStore({ redis, prefix: uniquePrefix(label) });
    const aborts = new RunAborts({ store, subscriber: createRedisClient(url) });
    await aborts.start();
    opened = { redis, store, aborts };
  });
  after(async () => {
    await opened?.aborts.close();
    opened?.redis.disconnect();
  });
  const logger = createLogger({ name: `${label}-test`, level: 'silent' });
  return {
    get redis() {
      return get().redis;
    },
    get store() {
      return get().store;
    },
    get aborts() {
      return get().aborts;
    },
    deps: () => ({ store: get().store, aborts: get().aborts, logger }),
  };
}
