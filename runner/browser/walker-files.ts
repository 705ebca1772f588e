// The names of the scripts `npm run build` generates for pages (scripts/build.mjs), keyed by the walker version so a
// package never evaluates a walker of another version than its fingerprints were taken with.
import { WALKER_VERSION } from '../../shared/dom/version.ts';

export type PageScript = 'walker' | 'gesture-probe';

/** The script's path from the package root: `dist/walker/walker-handrail-walker-1.js`. */
export function walkerFile(kind: PageScript): string {
  return `dist/walker/${kind}-${WALKER_VERSION.replace(/[^A-Za-z0-9.]+/g, '-')}.js`;
}
