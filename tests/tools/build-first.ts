// Global setup of both test runners: build the product when a source is newer than the last build (scripts/build.mjs
// --if-stale), so the CLI children, the page walker and CASEDESK's client a test meets are those of the sources.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

export default function buildFirst(): void {
  const root = resolve(import.meta.dirname, '../..');
  const r = spawnSync(process.execPath, [resolve(root, 'scripts/build.mjs'), '--if-stale', '--quiet'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm run build failed (exit ${r.status ?? r.signal}): the tests need the built product`);
}
