#!/usr/bin/env node
// Builds the product once, so nothing transpiles or bundles on a user's hot path (STYLE.md 14): the TypeScript of
// runner/, shared/, the agents and demo/ to JavaScript under dist/ (types are checked by `npm run check`), the
// page walker and the gesture probe as generated scripts keyed by the walker version (dist/walker/), CASEDESK's
// client (dist/demo/casedesk/client.js) and, unless --no-ext, the extension (wxt build → .output/chrome-mv3).
// `npm ci` runs it (prepare); the test configs run it with --if-stale, so a test never meets a stale dist/.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');
const say = (s) => quiet || process.stderr.write(`build: ${s}\n`);

function run(cmd, argv) {
  const r = spawnSync(cmd, argv, { cwd: ROOT, stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit' });
  if (r.status !== 0) {
    process.stderr.write(`build: ${cmd} ${argv.join(' ')} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
}

const bin = (pkg, file) => join(ROOT, 'node_modules', pkg, file);

// --if-stale (the test configs): nothing to do when every input is older than the last build's stamp.
const STAMP = join(ROOT, 'dist/.built');
const INPUTS = ['runner', 'shared', 'terminal-agent', 'mac-agent', 'demo', 'extension', 'wxt.config.ts', 'package.json', 'scripts/build.mjs'];
function newestInput() {
  let newest = 0;
  for (const input of INPUTS) {
    const top = join(ROOT, input);
    const st = statSync(top);
    newest = Math.max(newest, st.mtimeMs);
    if (!st.isDirectory()) continue;
    for (const f of readdirSync(top, { recursive: true, withFileTypes: true })) {
      if (f.isFile()) newest = Math.max(newest, statSync(join(f.parentPath, f.name)).mtimeMs);
    }
  }
  return newest;
}
if (args.has('--if-stale') && existsSync(STAMP) && statSync(STAMP).mtimeMs > newestInput() && existsSync(join(ROOT, '.output/chrome-mv3/manifest.json'))) {
  process.exit(0);
}

// 1. JavaScript under dist/, the same tree as the sources (dist/runner/cli/main.js …): each module transpiled on its
// own (esbuild: the code is written for isolated modules), its relative `.ts` imports pointing at the `.js` beside it.
// Types are tsc's business, in `npm run check`; parsing every .d.ts to emit would take 20 s more.
let t = Date.now();
const SOURCES = ['runner', 'shared', 'terminal-agent', 'mac-agent', 'demo'];
const sources = SOURCES.flatMap((dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile() && /\.tsx?$/.test(f.name) && !/\.d\.ts$/.test(f.name))
    .map((f) => join(f.parentPath, f.name))
    .filter((f) => !f.includes(`${join('demo', 'casedesk', 'client')}`) && !f.includes(`${join('mac-agent', 'helper')}`)),
);
const relativeTs = {
  name: 'relative-ts-to-js',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (a) => {
      if (a.kind === 'entry-point') return undefined;
      const path = /^\.{1,2}\//.test(a.path) ? a.path.replace(/\.tsx?$/, '.js') : a.path;
      return { path, external: true };
    });
  },
};
// Never emptied first: a test or a run reading dist/ while another build runs must not find a hole (--clean empties it).
if (args.has('--clean')) rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: sources,
  outdir: join(ROOT, 'dist'),
  outbase: ROOT,
  bundle: true,
  plugins: [relativeTs],
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  logLevel: 'warning',
});
say(`dist/ compiled in ${Date.now() - t} ms (${sources.length} modules)`);

// 2. Scripts evaluated in pages: generated once, read from disk at run time (runner/browser/walker-bundle.ts).
t = Date.now();
const { WALKER_VERSION } = await import(pathToFileURL(join(ROOT, 'dist/shared/dom/version.js')).href);
const { walkerFile } = await import(pathToFileURL(join(ROOT, 'dist/runner/browser/walker-files.js')).href);
async function iife(contents, sourcefile, target) {
  const out = await build({
    stdin: { contents, resolveDir: ROOT, sourcefile, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target,
    minify: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const text = out.outputFiles[0]?.text;
  if (!text) throw new Error(`esbuild produced nothing for ${sourcefile}`);
  return text;
}
const walkerDir = join(ROOT, 'dist/walker');
mkdirSync(walkerDir, { recursive: true });
// Written beside and renamed over: a reader sees the old script or the new one, never half of one.
const writeAtomic = (path, text) => {
  writeFileSync(`${path}.tmp-${process.pid}`, text);
  renameSync(`${path}.tmp-${process.pid}`, path);
};
for (const [kind, entry] of [
  ['walker', "import { install } from './shared/dom/index.ts'; install();"],
  ['gesture-probe', "import { recordListeners } from './shared/dom/gestures.ts'; recordListeners();"],
]) {
  const text = await iife(entry, `${kind}-entry.ts`, 'chrome110');
  const sha = createHash('sha256').update(text).digest('hex').slice(0, 16);
  writeAtomic(join(ROOT, walkerFile(kind)), `/* ${WALKER_VERSION} ${sha} */\n${text}`);
}
const client = await build({ entryPoints: [join(ROOT, 'demo/casedesk/client/app.ts')], bundle: true, write: false, format: 'iife', target: 'chrome120', logLevel: 'silent' });
writeAtomic(join(ROOT, 'dist/demo/casedesk/client.js'), client.outputFiles[0]?.text ?? '');
say(`page scripts bundled in ${Date.now() - t} ms (${readdirSync(walkerDir).join(', ')})`);

// 3. The extension (its own bundler, WXT/Vite, over the same shared/ modules).
if (!args.has('--no-ext')) {
  t = Date.now();
  run(process.execPath, [bin('wxt', 'bin/wxt.mjs'), 'build']);
  say(`extension built in ${Date.now() - t} ms`);
}

// A build without the extension leaves no stamp: only a whole build can be up to date.
if (!args.has('--no-ext')) writeFileSync(STAMP, `${new Date().toISOString()}\n`);
