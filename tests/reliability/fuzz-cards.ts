// Fuzzed cards: mutations of the real cards in capabilities/ (dropped keys, wrong types, huge strings, deep nesting,
// unicode, duplicate keys, prototype keys, pathological regexes, blanks naming nothing, truncation) must each load or
// be refused with typed issues that name a path, within 1 s: 0 crashes, 0 hangs. Seeded, so a failure replays.
// Standalone: `npx tsx tests/reliability/fuzz-cards.ts [--count N] [--seed S]`; `main()` for a shared runner.
import { seeded } from '../../demo/random.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateInputs } from '../../shared/inputs.ts';
import { compileSafe } from '../../shared/regex.ts';
import { formatIssues, loadCapability, type Capability } from '../../shared/schema/index.ts';

export const KINDS = [
  'drop_key',
  'wrong_type',
  'huge_string',
  'deep_nesting',
  'unicode',
  'duplicate_key',
  'proto_key',
  'proto_ref',
  'evil_regex',
  'bad_regex',
  'blank_nothing',
  'truncate',
  'byte_flip',
] as const;
export type Kind = (typeof KINDS)[number];

/** A single run may take at most this long (load, and for a loaded card: its regexes on hostile text). */
export const BUDGET_MS = 1_000;

export interface Row {
  kind: Kind;
  n: number;
  loaded: number;
  refused: number;
  crashes: number;
  hangs: number;
  untyped: number;
  max_ms: number;
}

export interface FuzzReport {
  seed: number;
  total: number;
  rows: Row[];
  failures: { kind: Kind; i: number; why: string }[];
  ms: number;
}

/** mulberry32: small, seedable, good enough to spread mutations. */
const rng = seeded;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Slot = { parent: Json[] | Record<string, Json>; key: string | number; value: Json };

function slots(v: Json, out: Slot[] = []): Slot[] {
  const entries: [string | number, Json][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : v && typeof v === 'object' ? Object.entries(v) : [];
  for (const [key, value] of entries) {
    out.push({ parent: v as Slot['parent'], key, value });
    slots(value, out);
  }
  return out;
}

const EVIL = ['(a+)+$', '(a|aa)+$', '(x+x+)+y', '^(a|a?)+$', '(\\w+\\s?)+$', '(.*a){20}', '([a-z]+)*=', '(a*)*b'];
const BAD = ['(', '[a-', '(?<=x)y', '(a)\\1', '*', 'a{2,1}', '(?P<n>', 'x'.repeat(5000)];
const UNICODE = ['\u200b', '\u202e', '\ufeff', '\u0000', '😀', '\ud800', 'ｆｕｌｌ', 'e\u0301', '\u2028', 'Zürich'];
const PROTO = ['__proto__', 'constructor', 'prototype'];
const REF_KEYS = ['screen', 'target', 'from_step', 'id'];

/** One mutated card text. */
export function mutate(base: Json, kind: Kind, r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const tree = structuredClone(base);
  const all = slots(tree);
  const some = (): Slot => pick(all);
  const set = (s: Slot, v: Json): void => {
    (s.parent as Record<string | number, Json>)[s.key] = v;
  };
  const strings = all.filter((s) => typeof s.value === 'string');
  const objects = all.filter((s) => s.value && typeof s.value === 'object' && !Array.isArray(s.value));
  const MARK = '\u0000MARK\u0000';
  const withMark = (make: string): string => JSON.stringify(tree).replace(JSON.stringify(MARK), make);
  switch (kind) {
    case 'drop_key': {
      const s = pick(all.filter((x) => typeof x.key === 'string'));
      delete (s.parent as Record<string, Json>)[s.key];
      return JSON.stringify(tree);
    }
    case 'wrong_type': {
      set(some(), pick<Json>([0, -1, 1e308, 'x', '', true, null, [], {}, [1, 'a'], { a: 1 }]));
      return JSON.stringify(tree);
    }
    case 'huge_string': {
      const size = r() < 0.1 ? 10_000_000 : Math.floor(70_000 + r() * 1_000_000);
      set(pick(strings), 'x'.repeat(size));
      return JSON.stringify(tree);
    }
    case 'deep_nesting': {
      const d = Math.floor(65 + r() * 20_000);
      set(some(), MARK);
      return withMark(r() < 0.5 ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d));
    }
    case 'unicode': {
      const s = pick(strings);
      const v = s.value as string;
      const at = Math.floor(r() * (v.length + 1));
      set(s, v.slice(0, at) + pick(UNICODE) + v.slice(at));
      if (r() < 0.3) {
        const o = pick(objects).value as Record<string, Json>;
        o[`k${pick(UNICODE)}`] = 'v';
      }
      return JSON.stringify(tree);
    }
    case 'duplicate_key': {
      const o = pick(objects.filter((x) => Object.keys(x.value as object).length > 0));
      const key = pick(Object.keys(o.value as object));
      set(o, MARK);
      const body = JSON.stringify(o.value).slice(1, -1);
      return withMark(`{${body},${JSON.stringify(key)}:${JSON.stringify(pick<Json>(['approved', 1, null, {}]))}}`);
    }
    case 'proto_key': {
      const o = pick(objects);
      set(o, MARK);
      const body = JSON.stringify(o.value).slice(1, -1);
      return withMark(`{${body ? `${body},` : ''}${JSON.stringify(pick(PROTO))}:{"polluted":true}}`);
    }
    case 'proto_ref': {
      const refs = all.filter((s) => typeof s.value === 'string' && typeof s.key === 'string' && REF_KEYS.includes(s.key));
      set(pick(refs.length ? refs : strings), pick(PROTO));
      return JSON.stringify(tree);
    }
    case 'evil_regex':
    case 'bad_regex': {
      const t = tree as Record<string, Json>;
      const pattern = pick(kind === 'evil_regex' ? EVIL : BAD);
      // Every place a card holds a regex: input patterns, outcome texts, output regexes; one of them gets it.
      const places: Record<string, Json>[] = [];
      for (const spec of Object.values((t['inputs'] ?? {}) as Record<string, Record<string, Json>>)) if (spec['type'] === 'string') places.push(spec);
      const o = (t['outcomes'] ?? {}) as Record<string, Record<string, Record<string, Json>>>;
      for (const group of ['business', 'recovery', 'failure']) for (const rule of Object.values(o[group] ?? {})) places.push(rule);
      for (const out of Object.values((t['outputs'] ?? {}) as Record<string, Record<string, Json>>)) places.push(out);
      const place = pick(places);
      place['regex' in place ? 'regex' : 'code' in place ? 'text' : 'pattern'] = pattern;
      return JSON.stringify(tree);
    }
    case 'blank_nothing': {
      const s = pick(strings);
      set(s, `${s.value as string}${pick(['{{input.nobody}}', '{{env.ANTHROPIC_API_KEY}}', '{{input.__proto__}}', '{{ input.constructor }}', '{{input.}}'])}`);
      return JSON.stringify(tree);
    }
    case 'truncate': {
      const text = JSON.stringify(tree, null, 2);
      return text.slice(0, Math.floor(r() * text.length));
    }
    case 'byte_flip': {
      const text = JSON.stringify(tree, null, 2);
      const at = Math.floor(r() * text.length);
      return text.slice(0, at) + String.fromCharCode(Math.floor(r() * 128)) + text.slice(at + 1);
    }
  }
}

/** What a loaded card's regexes do on hostile text: every pattern must answer within the budget too. */
function exercise(card: Capability): void {
  const hostile = `${'a'.repeat(30_000)}!`;
  for (const rule of [...Object.values(card.outcomes.business), ...Object.values(card.outcomes.recovery), ...Object.values(card.outcomes.failure)]) {
    if (rule.text !== undefined) compileSafe(rule.text).test(hostile);
  }
  for (const out of Object.values(card.outputs)) if (out.kind !== 'rows') compileSafe(out.regex).exec(hostile);
  const given: Record<string, string> = {};
  for (const [name, spec] of Object.entries(card.inputs)) given[name] = spec.type === 'integer' ? '1' : hostile.slice(0, spec.max_length);
  validateInputs(card, given, {});
}

export function seedCards(dir = 'capabilities'): { name: string; value: Json }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ name: f, value: JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json }))
    .filter((c) => (c.value as Record<string, Json>)['schema'] === 'handrail.capability/v1');
}

export function fuzzCards(opts: { count?: number; seed?: number; dir?: string } = {}): FuzzReport {
  const count = opts.count ?? 1_300;
  const seed = opts.seed ?? 20261201;
  const r = rng(seed);
  const seeds = seedCards(opts.dir);
  if (seeds.length === 0) throw new Error(`no cards in ${opts.dir ?? 'capabilities'}`);
  const rows = new Map<Kind, Row>(KINDS.map((k) => [k, { kind: k, n: 0, loaded: 0, refused: 0, crashes: 0, hangs: 0, untyped: 0, max_ms: 0 }]));
  const failures: FuzzReport['failures'] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const kind = KINDS[i % KINDS.length] as Kind;
    const row = rows.get(kind) as Row;
    const base = seeds[Math.floor(r() * seeds.length)]?.value ?? null;
    row.n++;
    let text: string;
    try {
      text = mutate(base, kind, r);
    } catch {
      // A mutation that found nothing to change (e.g. no object): count it as the unmutated card.
      text = JSON.stringify(base);
    }
    const t = performance.now();
    try {
      const loaded = loadCapability(text);
      if (loaded.ok) {
        row.loaded++;
        exercise(loaded.value);
      } else {
        row.refused++;
        const typed = loaded.issues.length > 0 && loaded.issues.every((x) => typeof x.path === 'string' && x.path.length > 0 && typeof x.message === 'string' && x.message.length > 0);
        const shown = formatIssues(loaded.issues);
        if (!typed || shown.length > 40_000) {
          row.untyped++;
          failures.push({ kind, i, why: !typed ? 'an issue without a path or message' : `the error text is ${shown.length} characters` });
        }
      }
    } catch (e) {
      row.crashes++;
      failures.push({ kind, i, why: `threw ${(e as Error).name}: ${(e as Error).message.slice(0, 200)}` });
    }
    const ms = performance.now() - t;
    row.max_ms = Math.max(row.max_ms, ms);
    if (ms > BUDGET_MS) {
      row.hangs++;
      failures.push({ kind, i, why: `took ${ms.toFixed(0)} ms` });
    }
    if ((Object.prototype as Record<string, unknown>)['polluted'] !== undefined) {
      row.crashes++;
      failures.push({ kind, i, why: 'Object.prototype was polluted' });
    }
  }
  return { seed, total: count, rows: [...rows.values()], failures, ms: performance.now() - started };
}

export function table(report: FuzzReport): string {
  const head = ['mutation', 'n', 'loaded', 'refused', 'crashes', 'hangs >1s', 'untyped', 'max ms'];
  const lines = report.rows.map((r) => [r.kind, r.n, r.loaded, r.refused, r.crashes, r.hangs, r.untyped, r.max_ms.toFixed(1)].map(String));
  const sum = (f: (r: Row) => number): string => String(report.rows.reduce((a, r) => a + f(r), 0));
  lines.push(['total', sum((r) => r.n), sum((r) => r.loaded), sum((r) => r.refused), sum((r) => r.crashes), sum((r) => r.hangs), sum((r) => r.untyped), Math.max(...report.rows.map((r) => r.max_ms)).toFixed(1)]);
  const widths = head.map((h, c) => Math.max(h.length, ...lines.map((l) => (l[c] ?? '').length)));
  const fmt = (cells: string[]): string => `| ${cells.map((x, c) => (c === 0 ? x.padEnd(widths[c] ?? 0) : x.padStart(widths[c] ?? 0))).join(' | ')} |`;
  return [fmt(head), `|${widths.map((w, c) => (c === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`, ...lines.map(fmt)].join('\n');
}

/** Runs the fuzz and prints the table; 0 when every mutation loaded or was refused cleanly in time. */
export function main(argv: readonly string[] = process.argv.slice(2)): number {
  const arg = (name: string): number | undefined => {
    const i = argv.indexOf(name);
    return i >= 0 && argv[i + 1] !== undefined ? Number(argv[i + 1]) : undefined;
  };
  const count = arg('--count');
  const seed = arg('--seed');
  const report = fuzzCards({ ...(count ? { count } : {}), ...(seed !== undefined ? { seed } : {}) });
  process.stdout.write(`fuzzed cards: ${report.total} mutations of the cards in capabilities/, seed ${report.seed}, ${(report.ms / 1000).toFixed(1)} s\n`);
  process.stdout.write(`${table(report)}\n`);
  for (const f of report.failures.slice(0, 20)) process.stdout.write(`  FAIL #${f.i} ${f.kind}: ${f.why}\n`);
  return report.failures.length === 0 ? 0 : 1;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) process.exitCode = main();
