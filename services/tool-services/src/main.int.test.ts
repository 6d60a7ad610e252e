/**
 * The tool-services process as deployed: started with its environment, serving four ports,
 * stopping cleanly on SIGTERM, and refusing a bad variable with one line.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', ...extra });

test('the process serves the four services and the offline model on the configured ports and stops on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', main], {
    env: env({ SEARCH_SERVICE_PORT: '0', OUTLINE_SERVICE_PORT: '0', WRITING_SERVICE_PORT: '0', EDITING_SERVICE_PORT: '0', MODEL_SERVICE_PORT: '0', TOOL_SERVICE_API_KEYS: 'k1,k2' }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls: string[] = [];
  let modelUrl = '';
  for await (const line of createInterface({ input: child.stdout })) {
    const record = JSON.parse(line) as { msg?: string; url?: string };
    if (record.msg?.endsWith('service listening') && record.url) urls.push(record.url);
    if (record.msg?.startsWith('offline model listening') && record.url) modelUrl = record.url;
    if (urls.length === 4 && modelUrl) break;
  }
  assert.match(modelUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  assert.equal((await fetch(`${modelUrl}/models`, { headers: { Authorization: 'Bearer k1' } })).status, 200);
  assert.equal((await fetch(`${modelUrl}/models`)).status, 401);
  for (const url of urls) {
    assert.equal((await fetch(`${url}/health`)).status, 200);
    assert.equal((await fetch(`${url}/tools`, { headers: { 'X-API-Key': 'k2' } })).status, 200);
    assert.equal((await fetch(`${url}/tools`)).status, 401);
  }
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('a bad fault variable stops start-up with one line naming it', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', main], { env: env({ FAULT_FAILURE_STATUS: '418' }), encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.status, 2);
  assert.match(run.stderr.trim(), /^tool-services: invalid environment variable FAULT_FAILURE_STATUS \("418"\)[^\n]*$/);
});
