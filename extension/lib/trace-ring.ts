// A small ring of what the worker did and when, kept in the service worker's memory only: message receipts, waits
// for a session's turn, calls into the tab. Names and phases only — never a value, a name the page shows or a URL —
// so it holds nothing a clerk typed. A test (or a person at chrome://serviceworker-internals) reads
// `globalThis.__handrailTrace` when something was not recorded and nobody said why.
const MAX = 400;

type Traced = typeof globalThis & { __handrailTrace?: string[] };

export function trace(what: string): void {
  const g = globalThis as Traced;
  const ring = (g.__handrailTrace ??= []);
  ring.push(`${new Date().toISOString().slice(11, 23)} ${what}`);
  if (ring.length > MAX) ring.splice(0, ring.length - MAX);
}
