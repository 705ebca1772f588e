// Builds the in-page walker (shared/dom) into one IIFE string with esbuild, once per process. The same modules
// are bundled into the extension's content script, so authoring and replay compute the same roles and names.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { WALKER_VERSION } from '../../shared/dom/version.ts';

export { WALKER_VERSION };

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

let cached: Promise<string> | undefined;

async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: "import { install } from './shared/dom/index.ts'; install();",
      resolveDir: ROOT,
      sourcefile: 'walker-entry.ts',
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
