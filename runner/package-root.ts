// Where this package's own files are (package.json, capabilities/, dist/walker/), whether the code runs from its
// TypeScript sources (runner/…) or compiled (dist/runner/…), in a clone or installed under node_modules.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'handrail') return dir;
    if (dirname(dir) === dir) throw new Error(`no handrail package.json above ${from}`);
  }
}

/** The package's root folder: the one holding its package.json. */
export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A file of the package, by its path from the root (`capabilities/plumbline-place-hold.json`). */
export const packageFile = (path: string): string => join(PACKAGE_ROOT, path);

/** The package's version, as package.json says it. */
export function packageVersion(): string {
  return String((JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0');
}
