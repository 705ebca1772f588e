// Verify: replay a card once per plate, each from cold, and let an independent judge (the system of record,
// never the screen) say whether the work happened: the judge is asked before and after each plate, and the
// card's expected change (data, with input blanks) must appear exactly when the word says SUCCESS. A plate that
// could not show the change (already in the after-state) is refused, not run. All plates clean → `verified`.
// A commit no owner confirmed keeps the card a draft however clean the plates (docs/design/capability.md, "The capability").
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { secretEnvName } from '../shared/inputs.ts';
import { canonicalJson } from '../shared/schema/canonical.ts';
import { judgeBlankProblems, type Capability, type ExpectedChange, type Lifecycle } from '../shared/schema/capability.ts';
import type { RunResult, Word } from '../shared/schema/result.ts';
import { addEnvSecrets, Masker, SecretError } from '../shared/secrets.ts';
import type { Surface } from '../shared/surface.ts';
import { approvalStatus } from './approval.ts';
import { filledChange, JudgeSpecError, stateAt, unmet, type Judge } from './judge.ts';
import { newRunId, runCapability, type RunNotebook, type RunRequest } from './run.ts';
import type { OpenOptions } from './surfaces.ts';
import { HandrailError } from '../shared/errors.ts';

export interface VerifyOptions {
  /** One row per run: input name → value. Secret inputs come from `env` (HANDRAIL_SECRET_<NAME>). */
  plates: readonly Readonly<Record<string, string>>[];
  judge: Judge;
  /** The expected change; default the card's own `judge.change`. One of the two is required. */
  change?: ExpectedChange;
  env: Readonly<Record<string, string | undefined>>;
  /** How the card's surface (chosen by the registry) opens for each plate: a fresh one, so each plate runs from cold. */
  open?: OpenOptions;
  /** Opens each plate's surface instead of the registry's driver (tests). */
  surfaceFactory?: () => Promise<Surface>;
  /** Inputs the same for every plate (e.g. the operator); a plate's own column wins. */
  fixedInputs?: Readonly<Record<string, string>>;
  /** Each plate's evidence goes to <evidenceRoot>/plate-<n>. Default runs/verify-<run id>. */
  evidenceRoot?: string;
  progress?: (line: string) => void;
  /** Called once per plate as soon as its report is final (refused or run), in plate order: for a progress bar. */
  plateDone?: (plate: PlateReport, total: number) => void;
  settleTimeoutMs?: number;
  /** Run history: each plate's run is recorded (runner/notebook.ts), like a CLI replay's. */
  notebook?: RunNotebook;
  now?: () => Date;
  /** How one plate is run; default runCapability. A seam for tests of the verdict logic, not for callers. */
  run?: (req: RunRequest) => Promise<RunResult>;
}

/**
 * What the judge said about one plate. `before`/`after` are the record's states (masked), null when not asked
 * or not answered; `changed` is whether the after-state shows the expected change; `agrees` whether the word
 * and the judge tell the same story (SUCCESS exactly when the change happened).
 */
export interface JudgeReport {
  expected: ExpectedChange;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  changed: boolean | null;
  agrees: boolean | null;
  detail: string;
}

/** clean: ran, SUCCESS, no help, the judge saw the change. failed: ran and is not clean. refused: not run (uninformative). */
export type PlateStatus = 'clean' | 'failed' | 'refused';

export interface PlateReport {
  /** 1-based, as a reviewer counts rows. */
  n: number;
  /** The plate's public inputs (secret values are never reported). */
  plate: Record<string, string>;
  status: PlateStatus;
  /** The run's word and code; null when the plate was refused and not run. */
  word: Word | null;
  code: string | null;
  llm_calls: number;
  classifier_calls: number;
  judge: JudgeReport;
  clean: boolean;
  /** Why the plate is not clean; empty when it is. */
  why: string;
  run_id: string | null;
  evidence: string | null;
  evidence_head: string | null;
  /** How long the plate's run took (0 when it was refused unrun). */
  duration_ms: number;
  /** When the word is not SUCCESS: what the last screen said (masked), as in every receipt. */
  page_text?: string;
}

export interface VerifyReport {
  card: string;
  verified: boolean;
  k: number;
  n: number;
  /** Commit steps no owner confirmed: while any is listed the card stays draft. */
  unconfirmed_commits: string[];
  plates: PlateReport[];
  /** The lifecycle the card should carry now (what `verifyCommand` writes back). */
  lifecycle: Lifecycle;
  /** One line for people: why the card is or is not verified. */
  summary: string;
}

export function unconfirmedCommits(card: Capability): string[] {
  return card.steps.filter((s) => s.effect.kind === 'commit' && !s.effect.confirmed_by).map((s) => s.id);
}

function publicPart(card: Capability, plate: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  // Only declared public inputs are shown: a misspelt secret column (`passwrd`) is neither public nor masked.
  for (const [k, v] of Object.entries(plate)) if (Object.hasOwn(card.inputs, k) && !card.inputs[k]?.secret) out[k] = v;
  return out;
}

/** Masks whatever a judge or a run says before it is shown: every secret input of the card, and every HANDRAIL_SECRET_*. */
function maskerFor(card: Capability, inputs: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>): Masker {
  const m = new Masker();
  const add = (name: string, value: string | undefined): void => {
    if (value === undefined) return;
    try {
      m.add(name, value);
    } catch (e) {
      // Too short to mask: the run itself refuses such a secret in preflight, before anything is shown.
      if (!(e instanceof SecretError)) throw e;
    }
  };
  for (const [name, spec] of Object.entries(card.inputs)) if (spec.secret) add(name, inputs[name] ?? env[secretEnvName(name)]);
  return addEnvSecrets(m, env);
}

const show = (v: unknown): string => JSON.stringify(v);

/** The expected change verify checks: the option wins over the card's own; blanks must name public inputs of the card. */
export function expectedChange(card: Capability, given?: ExpectedChange): ExpectedChange {
  const change = given ?? card.judge?.change;
  if (!change) {
    throw new VerifyError(
      'NO_EXPECTED_CHANGE',
      `card ${card.id} declares no expected change: add "judge": {"change": {"before": {...}, "after": {...}}} to the card, or pass --change FILE`,
    );
  }
  const problems = judgeBlankProblems(change, card.inputs);
  if (problems.length > 0) throw new VerifyError('BAD_CHANGE', `the expected change: ${problems.map((p) => `${p.path.join('.')}: ${p.message}`).join('; ')}`);
  return change;
}

/** The rows an answer holds at `at`, or why it holds none (docs/design/authoring.md, "Verifying rows"). */
function judgedRows(state: Record<string, unknown>, at: string): unknown[] | string {
  const v = stateAt(state, at);
  return Array.isArray(v) ? v : `the judge's answer has no list of rows at "${at}"`;
}

export async function verify(card: Capability, opts: VerifyOptions): Promise<VerifyReport> {
  if (opts.plates.length === 0) throw new VerifyError('NO_PLATES', 'no plates to verify on: the inputs file has a header but no rows');
  // A read-only card whose judge holds the rows it should return; a given --change still wins.
  const rowsJudge = opts.change === undefined ? (card.judge?.rows ?? null) : null;
  const change: ExpectedChange = rowsJudge ? { before: {}, after: { [rowsJudge.at]: `= outputs.${rowsJudge.output}` } } : expectedChange(card, opts.change);
  const now = opts.now ?? ((): Date => new Date());
  const root = resolve(opts.evidenceRoot ?? join('runs', `verify-${newRunId(now())}`));
  const say = opts.progress ?? ((): void => undefined);
  const runOne = opts.run ?? runCapability;
  const reports: PlateReport[] = [];
  const push = (r: PlateReport): void => {
    reports.push(r);
    opts.plateDone?.(r, opts.plates.length);
  };
  for (const [i, row] of opts.plates.entries()) {
    const inputs = { ...opts.fixedInputs, ...row };
    const plate = publicPart(card, inputs);
    const masker = maskerFor(card, inputs, opts.env);
    const masked = <T>(v: T): T => masker.maskDeep(v);
    say(`plate ${i + 1}/${opts.plates.length}: ${Object.entries(plate).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    let expected: ExpectedChange;
    try {
      expected = rowsJudge ? change : filledChange(change, plate);
    } catch (e) {
      if (!(e instanceof JudgeSpecError)) throw e;
      throw new VerifyError('BAD_CHANGE', `plate ${i + 1}: the expected change ${e.message}`);
    }
    const base = { n: i + 1, plate, llm_calls: 0, classifier_calls: 0, run_id: null, evidence: null, evidence_head: null, word: null, code: null, duration_ms: 0 };
    const refuse = (judge: JudgeReport, why: string): void => {
      say(`  refused: ${why}`);
      push({ ...base, status: 'refused', judge, clean: false, why });
    };

    // Before: the plate must be able to show the change. A record already in the after-state (or not in the
    // before-state) cannot tell a run that worked from one that did nothing, so the plate is not run at all.
    const before = await opts.judge({ card: card.id, inputs: plate, phase: 'before' });
    if (!before.ok) {
      refuse({ expected, before: null, after: null, changed: null, agrees: null, detail: masker.mask(before.detail) }, `the judge gave no before-state: ${masker.mask(before.detail)}`);
      continue;
    }
    const beforeState = masked(before.state);
    const rowsBefore = rowsJudge ? judgedRows(before.state, rowsJudge.at) : null;
    if (typeof rowsBefore === 'string') {
      refuse({ expected, before: beforeState, after: null, changed: null, agrees: null, detail: rowsBefore }, `the judge gave no rows before the run: ${rowsBefore}`);
      continue;
    }
    if (!rowsJudge && unmet(before.state, change.after, plate).length === 0) {
      refuse(
        { expected, before: beforeState, after: null, changed: null, agrees: null, detail: `before the run the judge already says ${show(beforeState)}` },
        `uninformative: the record already shows the after-state ${show(expected.after)} before the run, so a run that did nothing would look the same; choose a plate the judge shows in ${show(expected.before)}`,
      );
      continue;
    }
    const notAtStart = rowsJudge ? [] : unmet(before.state, change.before, plate);
    if (notAtStart.length > 0) {
      refuse(
        { expected, before: beforeState, after: null, changed: null, agrees: null, detail: `before the run the judge says ${show(beforeState)}` },
        `uninformative: the record is not in the before-state (${masker.mask(notAtStart.join('; '))}), so the change cannot be told apart`,
      );
      continue;
    }

    // A fresh journal per plate: a plate must never be answered from another plate's (or an earlier verify's) journal.
    const journalDir = await mkdtemp(join(tmpdir(), 'handrail-verify-'));
    let result: RunResult;
    try {
      result = await runOne({
        card,
        inputs,
        env: opts.env,
        ...(opts.surfaceFactory ? { surface: opts.surfaceFactory } : {}),
        ...(opts.open ? { open: opts.open } : {}),
        journalPath: join(journalDir, 'journal.jsonl'),
        // Verify exists to run cards that are not approved yet, inside its own isolation (fresh journal per plate).
        allowUnapproved: true,
        evidenceDir: join(root, `plate-${i + 1}`),
        progress: (line) => say(`  ${line}`),
        // One masker for the plate: what the run writes and what the judge says are masked alike.
        masker,
        ...(opts.settleTimeoutMs ? { settleTimeoutMs: opts.settleTimeoutMs } : {}),
        ...(opts.notebook ? { notebook: opts.notebook } : {}),
      });
    } finally {
      await rm(journalDir, { recursive: true, force: true });
    }

    const after = await opts.judge({ card: card.id, inputs: plate, phase: 'after' });
    const ran = {
      ...base,
      word: result.word,
      code: result.code,
      llm_calls: result.llm_calls,
      classifier_calls: result.classifier_calls,
      run_id: result.run_id,
      evidence: result.evidence,
      evidence_head: result.evidence_head ?? null,
      duration_ms: result.duration_ms,
      ...(result.page_text !== undefined ? { page_text: result.page_text } : {}),
    };
    const said = `${result.word} ${result.code}`;
    let judge: JudgeReport;
    let why: string;
    if (!after.ok) {
      judge = { expected, before: beforeState, after: null, changed: null, agrees: null, detail: masker.mask(after.detail) };
      why = `the judge gave no after-state, so the word ${said} cannot be checked: ${judge.detail}`;
    } else if (rowsJudge && rowsBefore) {
      ({ judge, why } = rowsVerdict(rowsJudge, result, { rowsBefore, before: beforeState, after: masked(after.state), expected, masker }));
    } else {
      const afterState = masked(after.state);
      const missing = unmet(after.state, change.after, plate);
      const changed = missing.length === 0;
      const agrees = changed === (result.word === 'SUCCESS');
      const detail = `before ${show(beforeState)} → after ${show(afterState)}`;
      judge = { expected, before: beforeState, after: afterState, changed, agrees, detail };
      if (!agrees && result.word === 'SUCCESS') {
        why = `the judge disagrees with the word: the word says ${said}, but the record shows no change (${masker.mask(missing.join('; '))}); ${detail}`;
      } else if (!agrees) {
        why = `the judge disagrees with the word: the record shows the change happened, but the word says ${said} (${masker.mask(result.message)}); ${detail}`;
      } else if (result.word !== 'SUCCESS') {
        why = `${said}: ${masker.mask(result.message)} (the judge agrees nothing changed)`;
      } else if (result.llm_calls !== 0 || result.classifier_calls !== 0) {
        why = `needed help: ${result.llm_calls} model call(s), ${result.classifier_calls} classifier call(s); a clean plate needs none`;
      } else why = '';
    }
    if (why) say(`  not clean: ${why}`);
    push({ ...ran, status: why === '' ? 'clean' : 'failed', judge, clean: why === '', why });
  }
  const k = reports.filter((r) => r.clean).length;
  const n = reports.length;
  const refused = reports.filter((r) => r.status === 'refused').map((r) => r.n);
  const unconfirmed = unconfirmedCommits(card);
  const allClean = k === n;
  const verified = allClean && unconfirmed.length === 0;
  const reliability = { k, n, at: now().toISOString() };
  const { approval: _dropped, ...rest } = card.lifecycle;
  let lifecycle: Lifecycle;
  if (verified && approvalStatus(card).servable) {
    // Re-verifying an approved, unchanged card refreshes its figure and keeps the signature.
    lifecycle = { ...card.lifecycle, reliability };
  } else {
    lifecycle = { ...rest, state: verified ? 'verified' : 'draft', reliability };
  }
  const refusedNote = refused.length > 0 ? ` (plate ${refused.join(', ')} refused as uninformative: not run)` : '';
  const summary = verified
    ? `verified: ${k} of ${n} plates clean`
    : !allClean
      ? `not verified: ${k} of ${n} plates clean${refusedNote}; the card is a draft`
      : `not verified: all ${n} plates clean, but commit step ${unconfirmed.join(', ')} was never confirmed by an owner, so the card must stay draft (record who confirmed it in the step's effect.confirmed_by)`;
  return { card: card.id, verified, k, n, unconfirmed_commits: unconfirmed, plates: reports, lifecycle, summary };
}

/**
 * A read-only plate's verdict: clean when the word is SUCCESS, the record did not change under the run, and the
 * rows output is exactly the rows the judge holds (same rows, same order, same columns).
 */
function rowsVerdict(
  spec: { output: string; at: string },
  result: RunResult,
  o: { rowsBefore: unknown[]; before: Record<string, unknown>; after: Record<string, unknown>; expected: ExpectedChange; masker: Masker },
): { judge: JudgeReport; why: string } {
  const said = `${result.word} ${result.code}`;
  const rowsAfter = judgedRows(o.after, spec.at);
  const detail = `the judge holds ${typeof rowsAfter === 'string' ? rowsAfter : `${rowsAfter.length} row(s)`}`;
  if (typeof rowsAfter === 'string') return { judge: { expected: o.expected, before: o.before, after: o.after, changed: null, agrees: null, detail }, why: `${detail}, so the word ${said} cannot be checked` };
  // Rows are compared as data: the same rows in the same order, each with the same columns in any key order.
  const changed = canonicalJson(o.rowsBefore) !== canonicalJson(rowsAfter);
  const got = o.masker.maskDeep(result.outputs[spec.output] ?? null);
  const same = canonicalJson(got) === canonicalJson(o.masker.maskDeep(rowsAfter));
  const agrees = result.word === 'SUCCESS' ? same : null;
  const judge: JudgeReport = { expected: o.expected, before: o.before, after: o.after, changed, agrees, detail };
  let why = '';
  if (changed) why = `the record changed under a read-only run: ${show(o.masker.maskDeep(o.rowsBefore))} → ${show(o.masker.maskDeep(rowsAfter))}`;
  else if (result.word !== 'SUCCESS') why = `${said}: ${o.masker.mask(result.message)}`;
  else if (!same) why = `the judge disagrees with the rows: the run returned ${show(got)}, the record holds ${show(o.masker.maskDeep(rowsAfter))}`;
  else if (result.llm_calls !== 0 || result.classifier_calls !== 0) why = `needed help: ${result.llm_calls} model call(s), ${result.classifier_calls} classifier call(s); a clean plate needs none`;
  return { judge, why };
}

export type VerifyErrorCode = 'NO_PLATES' | 'BAD_PLATES' | 'CARD_UNREADABLE' | 'NO_EXPECTED_CHANGE' | 'BAD_CHANGE';

export class VerifyError extends HandrailError<VerifyErrorCode> {
  override readonly name = 'VerifyError';
  constructor(code: VerifyErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * RFC 4180 CSV: a header row of input names, then one plate per row. Quoted fields may hold commas,
 * doubled quotes and newlines. Blank lines are skipped; a row with the wrong number of fields is refused.
 */
export function parsePlatesCsv(text: string, file = 'plates'): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const src = text.replace(/^\uFEFF/, '');
  const endRow = (): void => {
    row.push(field);
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
    field = '';
  };
  while (i < src.length) {
    const c = src[i] as string;
    if (quoted) {
      if (c === '"' && src[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (c === '"') quoted = false;
      else field += c;
      i++;
      continue;
    }
    if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') endRow();
    else if (c !== '\r') field += c;
    i++;
  }
  if (quoted) throw new VerifyError('BAD_PLATES', `${file}: a quoted field is never closed`);
  if (field !== '' || row.length > 0) endRow();
  const [header, ...body] = rows;
  if (!header) throw new VerifyError('BAD_PLATES', `${file} is empty: expected a header row of input names, then one row per plate`);
  const names = header.map((h) => h.trim());
  const dup = names.find((h, j) => names.indexOf(h) !== j);
  if (dup !== undefined) throw new VerifyError('BAD_PLATES', `${file}: column "${dup}" appears twice in the header`);
  if (names.some((h) => h === '')) throw new VerifyError('BAD_PLATES', `${file}: the header has an empty column name`);
  return body.map((cells, j) => {
    if (cells.length !== names.length) {
      throw new VerifyError('BAD_PLATES', `${file}: row ${j + 2} has ${cells.length} fields, the header has ${names.length}`);
    }
    return Object.fromEntries(names.map((h, c) => [h, cells[c] ?? '']));
  });
}

/**
 * Replace the card file's lifecycle, keeping every other byte's meaning and the file's key order
 * (the raw JSON is edited, not the parsed card, so defaults zod filled in are not written out). 2-space JSON.
 */
export async function writeLifecycle(path: string, lifecycle: Lifecycle): Promise<void> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  // The schema's own order, so every card reads the same way: state, reliability, approval, review_notes.
  const { state, reliability, approval, review_notes, ...other } = lifecycle;
  raw['lifecycle'] = { state, ...(reliability ? { reliability } : {}), ...(approval ? { approval } : {}), review_notes, ...other };
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(raw, null, 2)}\n`, 'utf8');
  await rename(tmp, path);
}
