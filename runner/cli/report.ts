// `handrail report [<evidence-dir|run-id|dir of runs>…] [-o FILE] [--head H]`: one self-contained HTML page per run
// (runner/report.ts), and over more than one run an index linking them. A run id is looked up as `runs/<id>` under
// the working directory and in the receipts of the journals (under the state home, or HANDRAIL_JOURNAL_URL's
// database; they also give its anchor, the evidence head the receipt recorded); no argument at all means every run those journals know.
// Exit 0 when every page is written and every run's evidence verifies, 1 when some evidence does not.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { addEnvSecrets, Masker } from '../../shared/secrets.ts';
import { envWithConfig, loadConfig } from '../config.ts';
import { FileJournalStore, type JournalStore } from '../engine/journal-store.ts';
import { journalStoreFor } from '../journals.ts';
import { EVIDENCE_KEY_ENV, LOG_FILE, type Anchor } from '../evidence.ts';
import { stateHome, storeIn } from '../intent.ts';
import { renderIndex, renderReport, summarizeRun, type RunSummary } from '../report.ts';
import { UsageError } from './errors.ts';

export interface ReportFlags {
  out?: string;
  head?: string;
  /** handrail.config.json to read: its `state_dir` is where run ids are looked up. */
  config?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** What the journals under the state home say about each run: where its evidence is and the head its receipt carried. */
export interface KnownRun {
  evidence: string;
  head?: string;
}

/** Reads every key the journal store holds (the file journals under the state home, or HANDRAIL_JOURNAL_URL's database). */
export async function runsInJournals(journals: JournalStore): Promise<Map<string, KnownRun>> {
  const out = new Map<string, KnownRun>();
  for (const key of await journals.keys()) {
    let read;
    try {
      read = await journals.read(key);
    } catch {
      continue; // a damaged journal anchors nothing; `handrail journal list` reports it
    }
    for (const r of read?.records ?? []) {
      if (r.phase !== 'receipt') continue;
      const receipt = r.receipt as { evidence?: unknown; evidence_head?: unknown } | null;
      if (typeof receipt?.evidence !== 'string') continue;
      out.set(r.run, { evidence: receipt.evidence, ...(typeof receipt.evidence_head === 'string' ? { head: receipt.evidence_head } : {}) });
    }
  }
  return out;
}

const isEvidence = (dir: string): boolean => existsSync(path.join(dir, LOG_FILE));
const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

/** Each argument as evidence directories: itself, the runs directly inside it (runs/, a verify root), or a run id. */
function resolveTargets(targets: readonly string[], known: ReadonlyMap<string, KnownRun>): string[] {
  if (targets.length === 0) {
    const dirs = [...known.values()].map((k) => k.evidence).filter(isEvidence);
    if (dirs.length === 0) throw new UsageError('no runs to report: the journals under the state home name no evidence directory that exists here; give evidence directories or run ids', 'NOT_EVIDENCE');
    return dirs;
  }
  const out: string[] = [];
  for (const t of targets) {
    if (isEvidence(t)) out.push(t);
    else if (isDir(t)) {
      const inner = readdirSync(t).sort().map((n) => path.join(t, n)).filter((d) => isDir(d) && isEvidence(d));
      if (inner.length === 0) throw new UsageError(`${t} is not an evidence directory (no ${LOG_FILE} in it or in any directory directly inside it)`, 'NOT_EVIDENCE');
      out.push(...inner);
    } else {
      const found = known.get(t)?.evidence ?? path.join('runs', t);
      if (!isEvidence(found)) throw new UsageError(`${t} is neither an evidence directory nor a run id found under runs/ or in the journals (the state home, or HANDRAIL_JOURNAL_URL)`, 'NOT_EVIDENCE');
      out.push(found);
    }
  }
  return [...new Set(out.map((d) => path.resolve(d)))];
}

const pageOf = (dir: string): string => `${path.resolve(dir).replace(/\/+$/, '')}.html`;

export async function reportCommand(targets: readonly string[], flags: ReportFlags, given: Env = process.env): Promise<number> {
  const env = envWithConfig(given, (await loadConfig(flags.config)).config);
  if (flags.head !== undefined && !/^[0-9a-fA-F]{64}$/.test(flags.head)) throw new UsageError(`--head expects 64 hex digits (a receipt's evidence_head), got "${flags.head}"`);
  // The journals the runs were answered from: the shared database when HANDRAIL_JOURNAL_URL names one (runner/journals.ts).
  const journals = await journalStoreFor(env, () => new FileJournalStore({ store: storeIn(stateHome(env)) }));
  let known: Map<string, KnownRun>;
  try {
    known = await runsInJournals(journals);
  } finally {
    await journals.close();
  }
  const dirs = resolveTargets(targets, known);
  // One run named (its directory or its id, or the only run the journals know) gets its page alone; a directory of
  // runs always gets an index, even of one.
  const t0 = targets[0];
  const single = dirs.length === 1 && targets.length <= 1 && !(t0 !== undefined && isDir(t0) && !isEvidence(t0));
  if (flags.head !== undefined && dirs.length !== 1) throw new UsageError(`--head anchors one run, but ${dirs.length} runs were named`);
  // The operator's secrets (HANDRAIL_SECRET_*), masked once more in every page.
  const masker = addEnvSecrets(new Masker(), env);
  const byDir = new Map([...known.values()].map((k) => [path.resolve(k.evidence), k.head]));
  const anchorOf = (dir: string): Anchor => {
    const anchor: Anchor = {};
    const head = flags.head ?? byDir.get(dir);
    if (head !== undefined) anchor.head = head.toLowerCase();
    const key = env[EVIDENCE_KEY_ENV];
    if (key) anchor.key = key;
    return anchor;
  };

  if (single) {
    const dir = dirs[0] ?? '';
    const report = await renderReport(dir, anchorOf(dir), { masker });
    // Beside the evidence directory, not inside it: the evidence stays exactly as the run left it.
    const out = flags.out ?? pageOf(dir);
    await writeFile(out, report.html, { mode: 0o600 });
    const state = report.verdict.ok ? `evidence intact${report.verdict.anchored_by.length ? '' : ' (unanchored)'}` : `evidence does NOT verify (line ${report.verdict.line}: ${report.verdict.reason})`;
    process.stderr.write(`report: ${out} · ${report.word ?? 'no word'} · ${state}\n`);
    process.stdout.write(`${out}\n`);
    return report.verdict.ok ? 0 : 1;
  }

  // The index: beside a single directory of runs as <dir>.html, else handrail-report.html here; each run's page
  // beside its evidence, linked relative to the index so the set can be moved together.
  const out = path.resolve(flags.out ?? (targets.length === 1 && t0 !== undefined && isDir(t0) ? pageOf(t0) : 'handrail-report.html'));
  const hrefs = new Map<RunSummary, string>();
  const runs: RunSummary[] = [];
  for (const dir of dirs) {
    const page = pageOf(dir);
    const anchor = anchorOf(dir);
    const report = await renderReport(dir, anchor, { masker, index: path.relative(path.dirname(page), out) });
    await writeFile(page, report.html, { mode: 0o600 });
    const summary = await summarizeRun(dir, anchor, masker);
    runs.push(summary);
    hrefs.set(summary, path.relative(path.dirname(out), page));
  }
  await writeFile(out, renderIndex(runs, hrefs), { mode: 0o600 });
  const bad = runs.filter((r) => !r.verdict.ok);
  for (const r of bad) process.stderr.write(`report: ${r.run}: evidence does NOT verify (line ${r.verdict.ok ? 0 : r.verdict.line}: ${r.verdict.ok ? '' : r.verdict.reason})\n`);
  process.stderr.write(`report: ${out} · ${runs.length} run${runs.length === 1 ? '' : 's'} · ${bad.length === 0 ? 'every evidence log verifies' : `${bad.length} do not verify`}\n`);
  process.stdout.write(`${out}\n`);
  return bad.length === 0 ? 0 : 1;
}
