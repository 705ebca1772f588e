// Naming a screen from its furniture: exact by signature (hash of the path set), else similar by Jaccard of the
// path sets at or above 0.85 (a banner added to a seven-path screen still scores 6/7). Ties are never guessed.
import type { Observation, Part } from './schema/observation.ts';
import { hashStrings } from './hash.ts';
import { LANDMARK_ROLES } from './dom/scopes.ts';
import { maskData } from './dom/walk.ts';
import { blankFor, BLANK_RE, blanksIn } from './schema/blanks.ts';

export const SIMILAR_THRESHOLD = 0.85;

/** Prefix for a part's paths: '' for the top part, 'work>' for the browser frame named work, 'a>b>' nested. */
export function partPrefix(part: readonly string[]): string {
  return part.length ? `${part.join('>')}>` : '';
}

export function signatureOf(paths: readonly string[]): string {
  return hashStrings([...new Set(paths)].sort());
}

/** One screen from its parts; the top part's locus stands for the whole (docs/design/verbs.md, "A neutral observation"). */
export function combineParts(parts: readonly Part[], observerVersion: string): Observation {
  const all = new Set<string>();
  for (const p of parts) {
    const prefix = partPrefix(p.part);
    for (const path of p.paths) all.add(prefix + path);
  }
  const paths = [...all].sort();
  const top = parts.find((p) => p.part.length === 0) ?? parts[0];
  return {
    locus: { ...(top?.locus ?? {}) },
    parts: [...parts],
    paths,
    signature: hashStrings(paths),
    ...(parts.some((p) => p.busy) ? { busy: true as const } : {}),
    ...(parts.some((p) => p.moving) ? { moving: true as const } : {}),
    observer: observerVersion,
  };
}

/** The screen's text part by part, each under a line naming the part and its locus: for evidence and `observe`. */
export function screenDump(obs: Pick<Observation, 'parts'>): string {
  // What a part's live regions say follows its text, one line each, marked as said (docs/design/replay.md, "What the app says").
  const said = (p: Part): string => (p.said ?? []).map((w) => `\n[said] ${w}`).join('');
  return obs.parts.map((p) => `--- ${p.part.join(' > ') || '(top)'} ${Object.values(p.locus).filter(Boolean).join(' · ')}\n${p.text}${said(p)}`).join('\n');
}

/** All the screen's visible content, part after part: what its live regions say is not in it (Part.said). */
export function screenWords(obs: Pick<Observation, 'parts'>): string {
  return obs.parts.map((p) => p.text).join('\n');
}

/** |A ∩ B| / |A ∪ B| over sets of paths; two empty sets are identical (1). */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  const A = new Set(a);
  const B = new Set(b);
  if (A.size === 0 && B.size === 0) return 1;
  let inter = 0;
  for (const x of A) if (B.has(x)) inter++;
  return inter / (A.size + B.size - inter);
}

export interface KnownScreen {
  label: string;
  signature: string;
  /** The screen's furniture: paths that are the same whichever record the run is about. */
  paths: readonly string[];
  /**
   * Paths that carry the record the run is about, as templates (capability `record_paths`): a path's text up to and
   * including an input's blank. A page path matches when it begins with the template filled from the run's inputs.
   */
  record?: readonly string[] | undefined;
  /** Paths and stable words that must all be present for this screen to be named (see capability `Marks`). */
  marks?: { paths: readonly string[]; text: readonly string[] } | undefined;
  /**
   * A screen that can follow a commit: the similar tier may name it only when it carries marks and all are
   * present. A refusal with the same furniture as the success screen must never read as success.
   */
  afterCommit?: boolean;
}

export interface ScreenMatch {
  label: string;
  how: 'exact' | 'similar';
  score: number;
}

/** What the screen namer reads of a page: its furniture and, for text marks, its visible text. */
export interface Seen {
  signature: string;
  paths: readonly string[];
  text?: string;
}

// ── Record paths (docs/design/replay.md, "Record paths") ─────────────────────────────────────────
// Real apps name panels after the record they show ("Assign C-1002: Stolen bicycle…", "Delete 'Q3 report'?"). Such a
// path is not furniture: on another record it reads differently. The compiler keeps it as a template — the path up
// to and including the input's blank — and the namer matches it by that prefix filled from the run's own inputs,
// so the page must show the panel for THIS record while the rest of its name may vary.

/** An input a screen may be templated from: a secret (no value, or `secret`) is never a blank. */
export interface RecordInput {
  name: string;
  value?: string | undefined;
  secret: boolean;
}

/** A run's non-secret input values by name: what record templates are filled from. */
export type PublicValues = Readonly<Record<string, string>>;

export function publicValues(inputs: readonly RecordInput[]): PublicValues {
  return Object.fromEntries(inputs.filter((i) => !i.secret && i.value !== undefined).map((i) => [i.name, i.value as string]));
}

/** A value as a path spells it: whitespace collapsed as accessible names are, digits masked as the walker masks them. */
export function asInPath(value: string): string {
  return maskData(value.replace(/\s+/g, ' ').trim());
}

/**
 * Letters a value must keep once masked to stand for a record: "C-1001" masks to "C-#", which every case's panel
 * shows, so it cannot tell this case's panel from another's and is never a blank.
 */
export const RECORD_MIN_LETTERS = 3;

function recordValue(value: string): boolean {
  return (asInPath(value).match(/\p{L}/gu)?.length ?? 0) >= RECORD_MIN_LETTERS;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const wordAt = (s: string, i: number): boolean => i >= 0 && i < s.length && WORD_CHAR.test(s.charAt(i));

/** Where `needle` first stands in `hay` as a whole token (not inside a longer word), or -1. */
function tokenAt(hay: string, needle: string): number {
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    if (!wordAt(hay, i - 1) && !wordAt(hay, i + needle.length)) return i;
  }
  return -1;
}

/**
 * Whether a recorded path spells one of the run's values (as a path spells it, a whole token, a value that can stand
 * for a record): the record the evening was about, which another run for another record will not show.
 */
export function spellsValue(path: string, values: PublicValues): boolean {
  const name = /'([^']*)'$/.exec(path)?.[1]?.trim() ?? '';
  return Object.values(values).some((v) => recordValue(v) && (tokenAt(path, asInPath(v)) >= 0 || badgeOf(name, v)));
}

/**
 * Whether a control's whole name is the short badge an app draws for a value: its first two or three letters or its
 * words' initials, any case (Node-RED's user menu shows "ed" for "editor"; mail apps show "DR" for "Dana Reviewer").
 * A run signed in as someone else shows another badge, so it is the record, never a mark.
 */
function badgeOf(name: string, value: string): boolean {
  if (name.length < 1 || name.length > 3 || !/^\p{L}+$/u.test(name)) return false;
  const n = name.toLowerCase();
  const v = value.trim().toLowerCase();
  const initials = v.split(/[\s._-]+/).filter(Boolean).map((w) => w.charAt(0)).join('');
  return (n.length >= 2 && v.startsWith(n)) || (initials.length >= 2 && initials === n);
}

/** The exact-tier signature of a screen with record paths: its furniture and its templates, told apart by count. */
export function recordSignature(furniture: readonly string[], record: readonly string[]): string {
  const f = [...new Set(furniture)].sort();
  return hashStrings(['handrail.record-paths/v1', String(f.length), ...f, ...[...new Set(record)].sort()]);
}

export interface TemplatedScreen {
  signature: string;
  paths: string[];
  record?: string[];
}

/**
 * A screen's recorded paths split into furniture and record templates, from the values the run was given: a path in
 * which a non-secret input's value stands (as a path spells it, with at least three letters) becomes the path up to
 * that value, the value replaced by its blank. The leftmost value ends the template (the longer at a tie). A path
 * whose text already holds a blank's spelling (page text) stays furniture. No record path: exactly the screen as
 * recorded, with its recorded signature; else the signature is `recordSignature`.
 */
export function templateScreen(screen: { signature: string; paths: readonly string[] }, inputs: readonly RecordInput[]): TemplatedScreen {
  const { paths } = screen;
  const values = Object.entries(publicValues(inputs))
    .filter(([, v]) => recordValue(v))
    .map(([name, v]) => ({ name, v: asInPath(v) }))
    .sort((a, b) => b.v.length - a.v.length || a.name.localeCompare(b.name));
  const furniture: string[] = [];
  const record = new Set<string>();
  for (const p of paths) {
    let best: { at: number; end: number; name: string } | null = null;
    for (const { name, v } of values) {
      const at = tokenAt(p, v);
      if (at >= 0 && (!best || at < best.at)) best = { at, end: at + v.length, name };
    }
    const head = best ? p.slice(0, best.at) : '';
    const quote = head.lastIndexOf(" '");
    // A name that says something besides the record ("Assign C-#: <title>") is a record path. A name that is the
    // value alone, the whole name, is one only where it titles the screen: a heading, a landmark or dialog, the
    // document title, reached through screen structure alone. Its template keeps the closing quote, so "Stolen
    // bicycle theft" never passes for "Stolen bicycle". Inside a list, row, grid or article it is one item of many
    // records, whose other items stay on the screen whichever record a run is for, so it stays furniture, as before
    // record paths. (Sections named by records outside any list: `readRecord`.)
    const said = head.slice(quote + 2);
    const titles = best !== null && quote >= 0 && said === '' && p.slice(best.end) === "'" && titlesScreen(head.slice(0, quote));
    const blank = best && blanksIn(head).length === 0 && !head.includes('{{') ? blankFor(best.name) : null;
    if (blank && titles) record.add(`${head}${blank}'`);
    else if (blank && /[\p{L}\p{N}]/u.test(said)) record.add(head + blank);
    else furniture.push(p);
  }
  if (record.size === 0 || furniture.length === 0) return { signature: screen.signature, paths: [...paths] };
  return { signature: recordSignature(furniture, [...record]), paths: furniture, record: [...record].sort() };
}

/** Roles a screen's own title may sit in or be: the page's structure, never a collection or one of its items. */
const SCREEN_STRUCTURE = new Set([...LANDMARK_ROLES, 'region', 'form', 'dialog', 'alertdialog', 'group', 'document', 'application', 'frame']);
const TITLE_ROLES = new Set(['heading', 'title', 'main', 'region', 'dialog', 'alertdialog', 'form']);

/** A path's role chain, before its name: "main>region>heading" of "main>region>heading 'Cases'". */
function chainOf(path: string): string {
  const at = path.indexOf(" '");
  return at < 0 ? path : path.slice(0, at);
}

/** Whether a path's role chain ("main>region>heading") ends in a title role reached through screen structure alone. */
function titlesScreen(chain: string): boolean {
  const roles = chain.split('>');
  const own = roles.pop() ?? '';
  return TITLE_ROLES.has(own) && roles.every((r) => SCREEN_STRUCTURE.has(r));
}

/** A template filled from the run's values as a path spells them; null when a blank has no value (never matches). */
function filled(template: string, values: PublicValues): string | null {
  let missing = false;
  const out = template.replace(BLANK_RE, (_whole, source: string, name: string) => {
    const v = source === 'input' ? values[name] : undefined;
    if (v === undefined) missing = true;
    return v === undefined ? '' : asInPath(v);
  });
  return missing ? null : out;
}

/**
 * How a page reads against one screen with record paths: a page path that is furniture of the screen stays itself;
 * another that begins with a filled template (the next character not a letter or digit: "C-1" never matches "C-12")
 * stands for that template. Returns the page's furniture and the templates it showed.
 */
function readRecord(seen: Seen, s: KnownScreen, values: PublicValues): { furniture: Set<string>; shown: Set<string> } {
  const own = new Set(s.paths);
  const prefixes = (s.record ?? []).map((t) => ({ t, f: filled(t, values) }));
  const furniture = new Set<string>();
  const shown = new Set<string>();
  const loose: string[] = [];
  for (const p of seen.paths) {
    const hit = own.has(p) ? undefined : prefixes.find(({ f }) => f !== null && p.startsWith(f) && !wordAt(p, f.length));
    if (hit) shown.add(hit.t);
    else if (own.has(p)) furniture.add(p);
    else loose.push(p);
  }
  // A whole-name template whose filled path the screen was recorded with as furniture, and which this page shows: the
  // page is a collection of records (sections named by them), the authored record one of them beside this run's. One
  // other path of the same role chain stands for the authored record, so the page reads as it was recorded, whichever
  // record the run is for. A page without the run's record gets no stand-in (it is not the page the run is about).
  for (const { t, f } of prefixes) {
    if (shown.has(t) || f === null || !t.endsWith("'") || !own.has(f) || !furniture.has(f)) continue;
    const i = loose.findIndex((p) => chainOf(p) === chainOf(t));
    if (i < 0) continue;
    shown.add(t);
    loose.splice(i, 1);
  }
  for (const p of loose) furniture.add(p);
  return { furniture, shown };
}

/** Whether the page has exactly this screen's paths (its signature, record paths read by `readRecord`). */
function exactly(seen: Seen, s: KnownScreen, values: PublicValues): boolean {
  if (!s.record?.length) return seen.signature === s.signature;
  const r = readRecord(seen, s, values);
  return recordSignature([...r.furniture], [...r.shown]) === s.signature;
}

/** Jaccard of the page's paths and the screen's, each record template counting once, as a path. */
function similarity(seen: Seen, s: KnownScreen, values: PublicValues): number {
  if (!s.record?.length) return jaccard(seen.paths, s.paths);
  const r = readRecord(seen, s, values);
  const own = new Set(s.paths);
  let inter = r.shown.size;
  for (const p of r.furniture) if (own.has(p)) inter++;
  const union = r.furniture.size + r.shown.size + own.size + new Set(s.record).size - inter;
  return union === 0 ? 1 : inter / union;
}
// ── end record paths ──────────────────────────────────────────────────────────────────────────────

function marksPresent(seen: Seen, s: KnownScreen, pathSet: ReadonlySet<string>): boolean {
  return marksShow(s.marks, pathSet, seen.text ?? '');
}

/** Whether every mark (path and stable word) shows on a page; no marks: nothing to show. */
export function marksShow(marks: KnownScreen['marks'], pathSet: ReadonlySet<string>, text: string): boolean {
  if (!marks) return true;
  return marks.paths.every((p) => pathSet.has(p)) && marks.text.every((t) => text.includes(t));
}

function hasMarks(s: KnownScreen): boolean {
  return !!s.marks && s.marks.paths.length + s.marks.text.length > 0;
}

/**
 * Whether a page may be called this screen on anyone's word but the namer's own (an escalation rung's): any screen
 * may, except one that can follow a commit — that needs marks, all of them showing, because a refusal can share a
 * success page's furniture and only the marks tell them apart. A model's say-so proves no effect.
 */
export function provable(seen: Seen, s: KnownScreen): boolean {
  if (!s.afterCommit) return true;
  return hasMarks(s) && marksPresent(seen, s, new Set(seen.paths));
}

/**
 * Names the screen showing: exact when its signature is a declared screen's (and that screen's marks hold),
 * else similar when exactly one declared screen scores Jaccard >= 0.85 and passes its marks. A screen that can
 * follow a commit needs marks to be named by the similar tier. Two candidates are never guessed between.
 * `values` (the run's non-secret inputs) fill the screens' record templates; without them a template matches nothing.
 */
export function nameScreen(seen: Seen, screens: readonly KnownScreen[], values: PublicValues = {}): ScreenMatch | null {
  const pathSet = new Set(seen.paths);
  const exact = screens.filter((s) => exactly(seen, s, values) && marksPresent(seen, s, pathSet));
  const exactLabels = new Set(exact.map((s) => s.label));
  if (exactLabels.size === 1 && exact[0]) return { label: exact[0].label, how: 'exact', score: 1 };
  if (exactLabels.size > 1) return null;
  const candidates = new Map<string, number>();
  for (const s of screens) {
    const score = similarity(seen, s, values);
    if (score < SIMILAR_THRESHOLD) continue;
    if (s.afterCommit && !hasMarks(s)) continue;
    if (!marksPresent(seen, s, pathSet)) continue;
    candidates.set(s.label, Math.max(score, candidates.get(s.label) ?? 0));
  }
  if (candidates.size !== 1) return null;
  const [label, score] = [...candidates.entries()][0] as [string, number];
  return { label, how: 'similar', score };
}

/**
 * Whether a screen is already labelled, and as what: the one answer the authoring guard and the compiler both
 * use, so a screen the guard calls labelled (exactly or as similar) is the screen the compiler calls labelled.
 * `labelled` are the screens named so far, as the label lines recorded them and `labelledScreen` templates them
 * (no marks: marks are the card's); `inputs` are the evening's, the same for guard and compiler.
 */
export function labelledAs(seen: Seen, labelled: readonly KnownScreen[], inputs: readonly RecordInput[] = []): string | null {
  return nameScreen(seen, labelled, publicValues(inputs))?.label ?? null;
}

/** A labelled screen as the namer knows it: its recorded paths templated by the evening's inputs, as the card will be. */
export function labelledScreen(label: string, screen: { signature: string; paths: readonly string[] }, inputs: readonly RecordInput[]): KnownScreen {
  const t = templateScreen(screen, inputs);
  return { label, signature: t.signature, paths: t.paths, ...(t.record ? { record: t.record } : {}) };
}
