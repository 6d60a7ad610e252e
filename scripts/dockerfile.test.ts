import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { REPO_ROOT } from '@switchyard/redis';

// No Docker engine runs here, so the image's recipe is held to the repository by reading it.
const dockerfile = readFileSync(`${REPO_ROOT}infra/Dockerfile`, 'utf8');

test('the image copies every workspace manifest before npm ci, so the install knows every workspace', () => {
  const workspaces = ['packages', 'services'].flatMap((dir) => readdirSync(`${REPO_ROOT}${dir}`).map((name) => `${dir}/${name}`));
  for (const workspace of workspaces) assert.match(dockerfile, new RegExp(`COPY ${workspace}/package\\.json ${workspace}/`), workspace);
});

test('the image runs compiled JavaScript with the shipped pipelines, and compose starts each service from its dist/', () => {
  assert.match(dockerfile, /npx tsc -b tsconfig\.build\.json/);
  assert.match(dockerfile, /NODE_OPTIONS=--conditions=switchyard-dist/);
  assert.match(dockerfile, /COPY pipelines pipelines/);
  const compose = readFileSync(`${REPO_ROOT}docker-compose.yml`, 'utf8');
  const commands = [...compose.matchAll(/command: \["node", "([^"]+)"\]/g)].map((m) => m[1]);
  assert.deepEqual(commands.sort(), ['services/mcp-bridge/dist/main.js', 'services/orchestrator/dist/main.js', 'services/tool-services/dist/main.js', 'services/workers/dist/main.js']);
});
