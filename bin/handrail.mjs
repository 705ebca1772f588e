#!/usr/bin/env node
// The `handrail` command: the compiled CLI (dist/, built by `npm run build`, which `npm ci` runs). No TypeScript
// loader and no bundler on this path.
import { existsSync } from 'node:fs';

const main = new URL('../dist/runner/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('handrail: the CLI is not built (dist/ is missing): run `npm run build` in the package folder\n');
  process.exit(2);
}
const cli = await import(main.href);
process.exitCode = await cli.main(process.argv.slice(2));
