/**
 * Creates a Supervisor user and prints its API token, which is shown only this once:
 *
 *   npm run create-user -w packages/supervisor -- alice
 *
 * The token is what login_with_project takes as api_token, with the username.
 */
import { createRedisClient, resolveRedis } from '@switchyard/redis';
import { loadEnv } from './env.js';
import { SupervisorStore, SupervisorStoreError } from './store.js';

const username = process.argv[2];
if (!username) {
  process.stderr.write('usage: npm run create-user -w packages/supervisor -- <username>\n');
  process.exit(2);
}

const config = loadEnv();
const handle = await resolveRedis({ url: config.redisUrl });
const redis = createRedisClient(handle.url, { maxRetriesPerRequest: 3 });
try {
  const { user, api_token } = await new SupervisorStore({ redis, prefix: config.prefix }).createUser({ username });
  process.stdout.write(`${JSON.stringify({ user_id: user.user_id, username: user.username, api_token })}\n`);
} catch (error) {
  if (!(error instanceof SupervisorStoreError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
} finally {
  await redis.quit();
  await handle.stop();
}
