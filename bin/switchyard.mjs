#!/usr/bin/env node
// The switchyard command (packages/cli) in a checkout: its TypeScript source run through tsx, a
// root devDependency, so `npx switchyard`, `npm link` and `npm i -g .` work after `npm ci` with no
// build. Plain JavaScript: node runs it before tsx is loaded.
import { register } from 'tsx/esm/api';

register();
const { runAsProgram } = await import('../packages/cli/src/main.ts');
await runAsProgram();
