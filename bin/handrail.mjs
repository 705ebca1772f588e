#!/usr/bin/env node
// The `handrail` command: runs the TypeScript CLI through tsx's loader (no build step to forget).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../runner/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
