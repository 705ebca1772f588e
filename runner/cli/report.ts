// `handrail report <evidence-dir> [-o FILE] [--head H]`: one self-contained HTML page per run (runner/report.ts).
// Exit 0 when the page is written and the evidence verifies, 1 when it is written but the evidence does not.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EVIDENCE_KEY_ENV, LOG_FILE, type Anchor } from '../evidence.ts';
import { renderReport } from '../report.ts';
import { existsSync } from 'node:fs';
import { UsageError } from './errors.ts';

export interface ReportFlags {
  out?: string;
  head?: string;
}

export async function reportCommand(dir: string, flags: ReportFlags, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  if (!existsSync(path.join(dir, LOG_FILE))) throw new UsageError(`${dir} is not an evidence directory (no ${LOG_FILE} in it)`, 'NOT_EVIDENCE');
  if (flags.head !== undefined && !/^[0-9a-fA-F]{64}$/.test(flags.head)) throw new UsageError(`--head expects 64 hex digits (a receipt's evidence_head), got "${flags.head}"`);
  const anchor: Anchor = {};
  if (flags.head !== undefined) anchor.head = flags.head.toLowerCase();
  const key = env[EVIDENCE_KEY_ENV];
  if (key) anchor.key = key;
  const report = await renderReport(dir, anchor);
  // Beside the evidence directory, not inside it: the evidence stays exactly as the run left it.
  const out = flags.out ?? `${path.resolve(dir).replace(/\/+$/, '')}.html`;
  await writeFile(out, report.html, { mode: 0o600 });
  const state = report.verdict.ok ? `evidence intact${report.verdict.anchored_by.length ? '' : ' (unanchored)'}` : `evidence does NOT verify (line ${report.verdict.line}: ${report.verdict.reason})`;
  process.stderr.write(`report: ${out} · ${report.word ?? 'no word'} · ${state}\n`);
  process.stdout.write(`${out}\n`);
  return report.verdict.ok ? 0 : 1;
}
