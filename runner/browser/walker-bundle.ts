// The in-page walker (shared/dom) as one script, generated at build time (scripts/build.mjs) and read from disk once
// per process: nothing bundles on a run's hot path. The same modules are bundled into the extension's content
// script, so authoring and replay compute the same roles and names.
import { readFile } from 'node:fs/promises';
import { GLOBAL_NAME } from '../../shared/dom/api.ts';
import { WALKER_VERSION } from '../../shared/dom/version.ts';
import { packageFile } from '../package-root.ts';
import { walkerFile, type PageScript } from './walker-files.ts';

export { WALKER_VERSION };

const cache = new Map<PageScript, Promise<string>>();

function pageScript(kind: PageScript): Promise<string> {
  let text = cache.get(kind);
  if (!text) {
    const path = packageFile(walkerFile(kind));
    text = readFile(path, 'utf8').catch((err: unknown) => {
      cache.delete(kind);
      const missing = err instanceof Error && 'code' in err && err.code === 'ENOENT';
      throw missing ? new Error(`the ${kind} script for ${WALKER_VERSION} is not built (${path}): run \`npm run build\``) : err;
    });
    cache.set(kind, text);
  }
  return text;
}

/** The walker as a script: evaluating it in a document installs `globalThis.__handrail` (idempotent). */
export function walkerSource(): Promise<string> {
  return pageScript('walker');
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

/**
 * The init script that records which elements get a `dblclick` or `contextmenu` listener (shared/dom/gestures.ts
 * `recordListeners`): run in every document before its own scripts, so the walker can offer those gestures.
 */
export function gestureProbeSource(): Promise<string> {
  return pageScript('gesture-probe');
}
