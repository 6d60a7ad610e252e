#!/usr/bin/env node
// The CKB-compatible MCP server for tests (see src/ckb/env.ts for its switches), through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/ckb/main.ts');
