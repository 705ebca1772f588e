// Builds the in-page walker (shared/dom) into one IIFE string with esbuild, once per process. The same modules
// are bundled into the extension's content script, so authoring and replay compute the same roles and names.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
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
