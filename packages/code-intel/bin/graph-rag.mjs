#!/usr/bin/env node
// The graph-rag CLI (also installed as graph-rag.sh, the name seed 001's contract tests call):
// the TypeScript source run through tsx, found from this file, so any working directory will do.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/graph-rag.ts');
