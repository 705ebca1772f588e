// Verify: replay a card once per plate, each from cold, and let an independent judge (the system of record,
// never the screen) say whether the work happened. All plates clean → the card is `verified`, k of n recorded.
// A commit no owner confirmed keeps the card a draft however clean the plates (DESIGN.md, "The capability").
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Capability, Lifecycle } from '../shared/schema/capability.ts';
import type { RunResult, Word } from '../shared/schema/result.ts';
import type { Surface } from '../shared/surface.ts';
import { approvalStatus } from './approval.ts';
import type { Judge, Verdict } from './judge.ts';
import { newRunId, runCapability } from './run.ts';

export interface VerifyOptions {
  /** One row per run: input name → value. Secret inputs come from `env` (HANDRAIL_SECRET_<NAME>). */
  plates: readonly Readonly<Record<string, string>>[];
  judge: Judge;
  env: Readonly<Record<string, string | undefined>>;
  /** Opens a fresh surface for each plate (a fresh browser: each plate runs from cold). */
  surfaceFactory: () => Promise<Surface>;
  /** Inputs the same for every plate (e.g. the operator); a plate's own column wins. */
  fixedInputs?: Readonly<Record<string, string>>;
  /** Each plate's evidence goes to <evidenceRoot>/plate-<n>. Default runs/verify-<run id>. */
  evidenceRoot?: string;
  progress?: (line: string) => void;
  settleTimeoutMs?: number;
  now?: () => Date;
}

export interface PlateReport {
  /** 1-based, as a reviewer counts rows. */
  n: number;
  /** The plate's public inputs (secret values are never reported). */
  plate: Record<string, string>;
  word: Word;
  code: string;
  llm_calls: number;
  classifier_calls: number;
  judge: Verdict | null;
  clean: boolean;
  /** Why the plate is not clean; empty when it is. */
  why: string;
  run_id: string;
  evidence: string | null;
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
  for (const [k, v] of Object.entries(plate)) if (!card.inputs[k]?.secret) out[k] = v;
  return out;
}

function whyNotClean(result: RunResult, verdict: Verdict | null): string {
  if (result.word !== 'SUCCESS') return `${result.word} ${result.code}: ${result.message}`;
  if (result.llm_calls !== 0 || result.classifier_calls !== 0) {
    return `needed help: ${result.llm_calls} model call(s), ${result.classifier_calls} classifier call(s); a clean plate needs none`;
  }
  if (!verdict?.ok) return `the judge did not confirm: ${verdict?.detail ?? 'not asked'}`;
  return '';
}

export async function verify(card: Capability, opts: VerifyOptions): Promise<VerifyReport> {
  if (opts.plates.length === 0) throw new VerifyError('NO_PLATES', 'no plates to verify on: the inputs file has a header but no rows');
  const now = opts.now ?? ((): Date => new Date());
  const root = resolve(opts.evidenceRoot ?? join('runs', `verify-${newRunId(now())}`));
  const say = opts.progress ?? ((): void => undefined);
  const reports: PlateReport[] = [];
  for (const [i, row] of opts.plates.entries()) {
    const inputs = { ...opts.fixedInputs, ...row };
    const plate = publicPart(card, inputs);
    say(`plate ${i + 1}/${opts.plates.length}: ${Object.entries(plate).map(([k, v]) => `${k}=${v}`).join(' ')}`);
    // A fresh journal per plate: a plate must never be answered from another plate's (or an earlier verify's) journal.
    const journalDir = await mkdtemp(join(tmpdir(), 'handrail-verify-'));
    let result: RunResult;
    try {
      result = await runCapability({
        card,
        inputs,
        env: opts.env,
        surface: opts.surfaceFactory,
        journalPath: join(journalDir, 'journal.jsonl'),
        // Verify exists to run cards that are not approved yet, inside its own isolation (fresh journal per plate).
        allowUnapproved: true,
        evidenceDir: join(root, `plate-${i + 1}`),
        progress: (line) => say(`  ${line}`),
        ...(opts.settleTimeoutMs ? { settleTimeoutMs: opts.settleTimeoutMs } : {}),
      });
    } finally {
      await rm(journalDir, { recursive: true, force: true });
    }
    const verdict = result.word === 'SUCCESS' ? await opts.judge(plate, result) : null;
    const why = whyNotClean(result, verdict);
    reports.push({
      n: i + 1,
      plate,
      word: result.word,
      code: result.code,
      llm_calls: result.llm_calls,
      classifier_calls: result.classifier_calls,
      judge: verdict,
      clean: why === '',
      why,
      run_id: result.run_id,
      evidence: result.evidence,
    });
  }
  const k = reports.filter((r) => r.clean).length;
  const n = reports.length;
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
  const summary = verified
    ? `verified: ${k} of ${n} plates clean`
    : !allClean
      ? `not verified: ${k} of ${n} plates clean; the card is a draft`
      : `not verified: all ${n} plates clean, but commit step ${unconfirmed.join(', ')} was never confirmed by an owner, so the card must stay draft (record who confirmed it in the step's effect.confirmed_by)`;
  return { card: card.id, verified, k, n, unconfirmed_commits: unconfirmed, plates: reports, lifecycle, summary };
}

export class VerifyError extends Error {
  override readonly name = 'VerifyError';
  constructor(
    readonly code: 'NO_PLATES' | 'BAD_PLATES' | 'CARD_UNREADABLE',
    message: string,
  ) {
    super(message);
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
