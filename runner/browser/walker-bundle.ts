// Builds the in-page walker (shared/dom) into one IIFE string with esbuild, once per process. The same modules
// are bundled into the extension's content script, so authoring and replay compute the same roles and names.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { GLOBAL_NAME } from '../../shared/dom/api.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';

export { WALKER_VERSION };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let cached: Promise<string> | undefined;

async function bundle(contents = "import { install } from './shared/dom/index.ts'; install();", sourcefile = 'walker-entry.ts'): Promise<string> {
  const result = await build({
    stdin: {
      contents,
      resolveDir: ROOT,
      sourcefile,
      loader: 'ts',
    },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome110',
    minify: false,
    legalComments: 'none',
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error('esbuild produced no walker bundle');
  return `/* ${WALKER_VERSION} */\n${out.text}`;
}

/** The walker as a script: evaluating it in a document installs `globalThis.__handrail` (idempotent). */
export function walkerSource(): Promise<string> {
  cached ??= bundle().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

/**
 * The walker as an init script, run at the start of every document before the page's own scripts. A `__handrail`
 * already there can only belong to the document before: the HTML standard lets a page reuse the window of its frame's
 * first about:blank document ("initialize the document object"), expandos and all. Chromium gives the page a fresh
 * global today (tests/e2e/walker-init.spec.ts checks the page observed is the frame's own); the old one is dropped
 * anyway, so the walker installed is always this document's.
 */
export async function walkerInitScript(): Promise<string> {
  return `delete globalThis[${JSON.stringify(GLOBAL_NAME)}];\n${await walkerSource()}`;
}

let probe: Promise<string> | undefined;

/**
 * The init script that records which elements get a `dblclick` or `contextmenu` listener (shared/dom/gestures.ts
 * `recordListeners`): run in every document before its own scripts, so the walker can offer those gestures.
 */
export function gestureProbeSource(): Promise<string> {
  probe ??= bundle("import { recordListeners } from './shared/dom/gestures.ts'; recordListeners();", 'gesture-probe.ts').catch((err: unknown) => {
    probe = undefined;
    throw err;
  });
  return probe;
}
