// One run as one self-contained HTML page for a reviewer: the typed word and receipt, each step with the screen it
// acted on and the rung that resolved its target, the screenshots, and whether the evidence chain verifies and is
// sealed. Built only from the evidence directory (already masked when it was written): nothing is added that the
// evidence does not hold, every string is escaped, images are data: URIs, and a Content-Security-Policy forbids
// scripts and every network fetch, so the file can be mailed, archived and opened offline.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Masker } from '../shared/secrets.ts';
import { EvidenceFile, LOG_FILE, verifyEvidence, type Anchor, type EvidenceVerdict } from './evidence.ts';

/** HTML-escapes text for element content and quoted attribute values. */
export function esc(value: unknown): string {
  const s = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

interface Line {
  seq: number;
  at: string;
  kind: string;
  data: Record<string, unknown>;
}

export interface RunReport {
  html: string;
  verdict: EvidenceVerdict;
  run: string;
  word: string | undefined;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));
/** Where a screen was, as its surface put it: the locus's values (logs written before loci carry a browser `url`). */
const where = (d: Record<string, unknown>): string => {
  const locus = d['locus'];
  if (locus && typeof locus === 'object') return Object.values(locus).map(str).filter(Boolean).join(' · ');
  return str(d['url']);
};

/**
 * The log's lines that parse; a line that does not is shown raw in the log table (the verdict names it). With a
 * masker (the operator's HANDRAIL_SECRET_* values) every string is masked once more: the evidence was masked as it
 * was written, so this only matters for a log written by something else, or a secret the run never knew.
 */
async function readLines(dir: string, masker?: Masker): Promise<{ lines: Line[]; raw: { n: number; text: string }[] }> {
  const read = await readLinesRaw(dir);
  if (!masker || masker.size === 0) return read;
  return { lines: read.lines.map((l) => ({ ...l, at: masker.mask(l.at), kind: masker.mask(l.kind), data: masker.maskDeep(l.data) })), raw: read.raw.map((r) => ({ n: r.n, text: masker.mask(r.text) })) };
}

async function readLinesRaw(dir: string): Promise<{ lines: Line[]; raw: { n: number; text: string }[] }> {
  let text = '';
  try {
    text = await fs.readFile(path.join(dir, LOG_FILE), 'utf8');
  } catch {
    return { lines: [], raw: [] };
  }
  const lines: Line[] = [];
  const raw: { n: number; text: string }[] = [];
  text.split('\n').forEach((t, i) => {
    if (t === '') return;
    try {
      const j = JSON.parse(t) as Partial<Line>;
      if (typeof j.kind === 'string' && j.data && typeof j.data === 'object') {
        lines.push({ seq: typeof j.seq === 'number' ? j.seq : i + 1, at: str(j.at), kind: j.kind, data: j.data });
        return;
      }
    } catch {
      // shown raw below
    }
    raw.push({ n: i + 1, text: t });
  });
  return { lines, raw };
}

/** A screenshot or text file named by the log, only if its bytes still hash to what the log says. */
async function fileOf(dir: string, data: Record<string, unknown>): Promise<Buffer | undefined> {
  const f = EvidenceFile.safeParse(data);
  if (!f.success) return undefined;
  try {
    const bytes = await fs.readFile(path.join(dir, f.data.file));
    return createHash('sha256').update(bytes).digest('hex') === f.data.sha256 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The look every Handrail page shares (run reports, the index, `handrail show`). */
export const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;color:#1d1d1f;background:#f6f6f4}
header{padding:20px 28px;background:#fff;border-bottom:1px solid #ddd}
main{padding:8px 28px 40px}
h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:28px 0 8px}
.word{display:inline-block;padding:3px 10px;border-radius:4px;font-weight:700;letter-spacing:.03em;color:#fff;background:#666}
.w-SUCCESS{background:#1f7a3a}.w-BUSINESS_OUTCOME{background:#2f5f9e}.w-RECOVERABLE{background:#9a6b00}
.w-UNSAFE_TO_RETRY,.w-FAILED{background:#b3261e}.w-REFUSED{background:#6b4fa0}
.verdict{margin-top:8px;padding:8px 12px;border-radius:4px}
.ok{background:#e6f4ea;border:1px solid #9ccfaa}.bad{background:#fdecea;border:1px solid #e0a39e}.warn{background:#fff6e0;border:1px solid #e8c870}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0ee;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.commit td{background:#fff4f2}
code,pre{font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-word;background:#fff;border:1px solid #ddd;padding:8px;margin:0}
.shots{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0;background:#fff;border:1px solid #ddd;padding:8px;max-width:560px}
figure img{max-width:100%;display:block;border:1px solid #eee}
figcaption{font-size:12px;color:#555;margin-top:4px}
`;

/** Renders the report of the run whose evidence is in `dir`. Verification uses `anchor` like `evidence verify`. */
export async function renderReport(dir: string, anchor: Anchor = {}, opts: { masker?: Masker; index?: string } = {}): Promise<RunReport> {
  const verdict = await verifyEvidence(dir, anchor);
  const { lines, raw } = await readLines(dir, opts.masker);
  const start = lines.find((l) => l.kind === 'run_start');
  const end = lines.find((l) => l.kind === 'run_end');
  const seal = lines.find((l) => l.kind === 'seal');
  const run = verdict.ok ? verdict.run : str(end?.data['run_id']) || path.basename(path.resolve(dir));
  const word = end ? str(end.data['word']) : seal ? str(seal.data['word']) : undefined;
  const card = str(start?.data['card'] ?? end?.data['card']);

  // Verdict banner.
  let verdictHtml: string;
  if (!verdict.ok) {
    verdictHtml = `<div class="verdict bad"><strong>Evidence does not verify</strong> — line ${esc(String(verdict.line))}: ${esc(verdict.reason)}. What follows is shown as found and must not be trusted.</div>`;
  } else {
    const sealed = verdict.seal ? `sealed <code>${esc(verdict.seal.word)}</code>${verdict.seal.hmac ? ' with an HMAC' : ''}${verdict.seal.unapproved ? ' · <strong>unapproved card</strong>' : ''}` : '<strong>not sealed</strong> (the run did not end, or the log was cut)';
    const anchored = verdict.anchored_by.length
      ? `anchored by ${esc(verdict.anchored_by.join(' + '))}`
      : 'unanchored (only the chain was checked: compare the head with the receipt\'s <code>evidence_head</code>, or give <code>--head</code> / <code>--journal</code> / HANDRAIL_EVIDENCE_KEY)';
    verdictHtml = `<div class="verdict ${verdict.anchored_by.length ? 'ok' : 'warn'}"><strong>Evidence chain intact</strong>: ${esc(String(verdict.lines))} lines, ${sealed}, ${anchored}.<br>head <code>${esc(verdict.head)}</code></div>`;
  }

  // Steps: each `step` line, with the screen it started on and the target its `resolve` line found.
  const rows: string[] = [];
  let screenNow = '';
  const resolved = new Map<string, Record<string, unknown>>();
  for (const l of lines) {
    if (l.kind === 'screen') {
      if (!rows.length && !screenNow) screenNow = str(l.data['label']);
      continue;
    }
    if (l.kind === 'resolve') resolved.set(str(l.data['step']), l.data);
    if (l.kind !== 'step') continue;
    const r = resolved.get(str(l.data['step']));
    const control = (r?.['control'] ?? null) as { role?: unknown; name?: unknown; hint?: unknown } | null;
    const target = [str(r?.['target']), control ? `${str(control.role)} '${str(control.name) || str(control.hint)}'` : ''].filter(Boolean).join(' → ');
    const effect = str(l.data['effect']);
    rows.push(
      `<tr class="${effect === 'commit' ? 'commit' : ''}"><td class="num">${esc(String(l.seq))}</td><td>${esc(str(l.data['step']))}</td><td>${esc(screenNow)}</td><td>${esc(str(l.data['verb']))}</td><td>${esc(effect)}</td><td>${esc(target)}</td><td>${esc(str(l.data['rung']))}</td><td>${esc(str(l.data['screen_after']))}</td><td class="num">${esc(str(l.data['settle_ms']))}</td></tr>`,
    );
    screenNow = str(l.data['screen_after']) || screenNow;
  }

  // Screens as named, in order.
  const screens = lines
    .filter((l) => l.kind === 'screen')
    .map((l) => `<tr><td class="num">${esc(String(l.seq))}</td><td>${esc(str(l.data['label']) || '(unnamed)')}</td><td>${esc(str(l.data['how']))}</td><td><code>${esc(str(l.data['signature']))}</code></td><td>${esc(where(l.data))}</td></tr>`);

  // Screenshots and screen texts, embedded only when their bytes match the log.
  const figures: string[] = [];
  for (const l of lines.filter((x) => x.kind === 'screenshot' || x.kind === 'text')) {
    const bytes = await fileOf(dir, l.data);
    const caption = `line ${l.seq} · ${str(l.data['name'])} · ${str(l.data['file'])}`;
    if (!bytes) figures.push(`<figure><figcaption>${esc(caption)} — <strong>missing or altered</strong>, not shown</figcaption></figure>`);
    else if (l.kind === 'screenshot') figures.push(`<figure><img alt="${esc(caption)}" src="data:image/png;base64,${bytes.toString('base64')}"><figcaption>${esc(caption)}</figcaption></figure>`);
    else figures.push(`<figure><pre>${esc(bytes.toString('utf8'))}</pre><figcaption>${esc(caption)}</figcaption></figure>`);
  }

  const log = lines.map((l) => `<tr><td class="num">${esc(String(l.seq))}</td><td>${esc(l.at)}</td><td>${esc(l.kind)}</td><td><pre>${esc(JSON.stringify(l.data, null, 1))}</pre></td></tr>`);
  for (const r of raw) log.push(`<tr><td class="num">${esc(String(r.n))}</td><td></td><td>(unreadable)</td><td><pre>${esc(r.text)}</pre></td></tr>`);

  const title = `${card || 'run'} · ${run}`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(`Handrail report · ${title}`)}</title>
<style>${CSS}</style></head>
<body>
<header>
${opts.index ? `<nav><a href="${esc(opts.index)}">← all runs</a></nav>` : ''}
<h1>${esc(card || 'Handrail run')}</h1>
<div>run <code>${esc(run)}</code> · ${word ? `<span class="word w-${esc(word)}">${esc(word)}</span>` : '<strong>no word recorded</strong>'}${end ? ` <code>${esc(str(end.data['code']))}</code> — ${esc(str(end.data['message']))}` : ''}</div>
${verdictHtml}
</header>
<main>
<h2>Steps</h2>
${rows.length ? `<table><thead><tr><th>line</th><th>step</th><th>on screen</th><th>verb</th><th>effect</th><th>target → control</th><th>rung</th><th>screen after</th><th>settle ms</th></tr></thead><tbody>${rows.join('')}</tbody></table>` : '<p>No step was acted on.</p>'}
<h2>Screens named</h2>
${screens.length ? `<table><thead><tr><th>line</th><th>screen</th><th>how</th><th>signature</th><th>where</th></tr></thead><tbody>${screens.join('')}</tbody></table>` : '<p>None.</p>'}
<h2>Screenshots</h2>
${figures.length ? `<div class="shots">${figures.join('')}</div>` : '<p>None.</p>'}
${outputsHtml(end?.data['outputs'])}
<h2>Receipt</h2>
${end ? `<pre>${esc(JSON.stringify(end.data, null, 2))}</pre>` : '<p>The log has no <code>run_end</code> line.</p>'}
<h2>Evidence log</h2>
<table><thead><tr><th>line</th><th>at</th><th>kind</th><th>data</th></tr></thead><tbody>${log.join('')}</tbody></table>
</main>
</body></html>
`;
  return { html, verdict, run, word };
}

/** One run as a row of the index: what a reviewer compares across runs. */
export interface RunSummary {
  dir: string;
  run: string;
  card: string;
  word: string | undefined;
  code: string;
  /** When the log's first line was written (ISO), '' when the log has none. */
  started: string;
  duration_ms: number | null;
  steps: number;
  /** target → the rung that resolved it, from the log's `resolve` lines. */
  rungs: Record<string, string>;
  /**
   * Screens a wait gave up on, unnamed (`screen_unrecognised`). A `screen` line with no label is not counted: a
   * page still loading passes through such states on every run.
   */
  unrecognised: string[];
  /** Screens named only by the similar tier: the furniture moved, the marks still held. */
  similar: string[];
  verdict: EvidenceVerdict;
}

/** Reads one evidence directory into its index row (verifying it with `anchor`, as the run's own page does). */
export async function summarizeRun(dir: string, anchor: Anchor = {}, masker?: Masker): Promise<RunSummary> {
  const verdict = await verifyEvidence(dir, anchor);
  const { lines } = await readLines(dir, masker);
  const start = lines.find((l) => l.kind === 'run_start');
  const end = lines.find((l) => l.kind === 'run_end');
  const seal = lines.find((l) => l.kind === 'seal');
  const rungs: Record<string, string> = {};
  const unrecognised: string[] = [];
  const similar: string[] = [];
  for (const l of lines) {
    if (l.kind === 'resolve' && l.data['ok'] === true && typeof l.data['rung'] === 'string') rungs[str(l.data['target'])] = l.data['rung'];
    if (l.kind === 'screen_unrecognised') unrecognised.push(`after ${str(l.data['step'])}: ${str(l.data['signature'])}`);
    if (l.kind === 'screen' && l.data['how'] === 'similar' && l.data['label']) similar.push(str(l.data['label']));
  }
  const duration = end?.data['duration_ms'];
  return {
    dir: path.resolve(dir),
    run: verdict.ok ? verdict.run : str(end?.data['run_id']) || path.basename(path.resolve(dir)),
    card: str(start?.data['card'] ?? end?.data['card']),
    word: end ? str(end.data['word']) : seal ? str(seal.data['word']) : undefined,
    code: str(end?.data['code']),
    started: lines[0]?.at ?? '',
    duration_ms: typeof duration === 'number' ? duration : null,
    steps: lines.filter((l) => l.kind === 'step').length,
    rungs,
    unrecognised,
    similar: [...new Set(similar)],
    verdict,
  };
}

/**
 * Drift, per run: a target that resolved on a different rung than in the previous run of the same card (the
 * page changed under the cheaper rung), and screens the run could not name. Runs are compared in the order they
 * started, per card; the first run of a card has nothing to drift from.
 */
export function driftOf(runs: readonly RunSummary[]): Map<RunSummary, string[]> {
  const out = new Map<RunSummary, string[]>();
  const last = new Map<string, Record<string, string>>();
  for (const r of [...runs].sort((a, b) => a.started.localeCompare(b.started))) {
    const before = last.get(r.card) ?? {};
    const notes: string[] = [];
    for (const [target, rung] of Object.entries(r.rungs)) {
      const was = before[target];
      if (was !== undefined && was !== rung) notes.push(`${target}: rung ${was} → ${rung}`);
    }
    for (const u of r.unrecognised) notes.push(`screen not recognised ${u}`);
    out.set(r, notes);
    last.set(r.card, { ...before, ...r.rungs });
  }
  return out;
}

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? null) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** The index over many runs: counts per word, durations, drift, each run linked to its own page (`hrefs`). */
export function renderIndex(runs: readonly RunSummary[], hrefs: ReadonlyMap<RunSummary, string>): string {
  const drift = driftOf(runs);
  const ordered = [...runs].sort((a, b) => a.started.localeCompare(b.started));
  const words = new Map<string, number>();
  for (const r of runs) words.set(r.word ?? '(none)', (words.get(r.word ?? '(none)') ?? 0) + 1);
  const durations = runs.map((r) => r.duration_ms).filter((d): d is number => d !== null);
  const bad = runs.filter((r) => !r.verdict.ok).length;
  const drifted = ordered.filter((r) => (drift.get(r) ?? []).length > 0).length;
  const ms = (n: number | null): string => (n === null ? '–' : `${Math.round(n).toLocaleString('en')} ms`);
  const wordCells = [...words.entries()].sort((a, b) => b[1] - a[1]).map(([w, n]) => `<tr><td><span class="word w-${esc(w)}">${esc(w)}</span></td><td class="num">${n}</td></tr>`);
  const rows = ordered.map((r) => {
    const v = r.verdict;
    const evidence = !v.ok ? `<span class="bad">does not verify: line ${esc(String(v.line))}</span>` : v.anchored_by.length ? `intact, anchored by ${esc(v.anchored_by.join(' + '))}` : 'intact, unanchored';
    const notes = drift.get(r) ?? [];
    const href = hrefs.get(r);
    return `<tr class="${notes.length ? 'drift' : ''}"><td>${esc(r.started)}</td><td>${href ? `<a href="${esc(href)}">${esc(r.run)}</a>` : esc(r.run)}</td><td>${esc(r.card)}</td><td>${r.word ? `<span class="word w-${esc(r.word)}">${esc(r.word)}</span>` : 'no word'} <code>${esc(r.code)}</code></td><td class="num">${esc(ms(r.duration_ms))}</td><td class="num">${r.steps}</td><td>${evidence}</td><td>${notes.length ? `<ul>${notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : ''}${r.similar.length ? `<div class="note">named by similarity: ${esc(r.similar.join(', '))}</div>` : ''}</td></tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Handrail runs · ${runs.length}</title>
<style>${CSS}table.words,table.durations{width:auto;min-width:320px}tr.drift td{background:#fff8e6}.note{color:#555;font-size:12px}ul{margin:0;padding-left:18px}span.bad{color:#b3261e;font-weight:600}</style></head>
<body>
<header>
<h1>Handrail runs</h1>
<div id="totals">${runs.length} run${runs.length === 1 ? '' : 's'} · ${bad === 0 ? 'every evidence log verifies' : `<strong>${bad} evidence log${bad === 1 ? '' : 's'} do${bad === 1 ? 'es' : ''} not verify</strong>`} · ${drifted} with drift</div>
</header>
<main>
<h2>Words</h2>
<table class="words"><thead><tr><th>word</th><th>runs</th></tr></thead><tbody>${wordCells.join('')}</tbody></table>
<h2>Durations</h2>
<table class="durations"><thead><tr><th>median</th><th>fastest</th><th>slowest</th><th>total</th></tr></thead><tbody><tr><td class="num">${esc(ms(median(durations)))}</td><td class="num">${esc(ms(durations.length ? Math.min(...durations) : null))}</td><td class="num">${esc(ms(durations.length ? Math.max(...durations) : null))}</td><td class="num">${esc(ms(durations.length ? durations.reduce((a, b) => a + b, 0) : null))}</td></tr></tbody></table>
<h2>Runs</h2>
<table class="runs"><thead><tr><th>started</th><th>run</th><th>card</th><th>word</th><th>duration</th><th>steps</th><th>evidence</th><th>drift</th></tr></thead><tbody>${rows.join('')}</tbody></table>
</main>
</body></html>
`;
}

/**
 * The run's outputs for a reader: a text output as a line, a rows output as a table with the card's column names
 * (docs/design/capability.md, "Rows as outputs"). Already masked: the engine masks outputs before the receipt is written.
 */
export function outputsHtml(outputs: unknown): string {
  if (!outputs || typeof outputs !== 'object' || Object.keys(outputs).length === 0) return '';
  const parts = Object.entries(outputs as Record<string, unknown>).map(([name, v]) => {
    if (!Array.isArray(v)) return `<p><code>${esc(name)}</code> ${esc(str(v))}</p>`;
    const rows = v.filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null);
    const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))];
    const body = rows.map((r) => `<tr>${cols.map((c) => `<td>${esc(str(r[c]))}</td>`).join('')}</tr>`).join('');
    return `<h3><code>${esc(name)}</code> · ${rows.length} row${rows.length === 1 ? '' : 's'}</h3>${rows.length ? `<table class="rows"><thead><tr>${cols.map((c) => `<th>${esc(c)}</th>`).join('')}</tr></thead><tbody>${body}</tbody></table>` : ''}`;
  });
  return `<h2>Outputs</h2>\n${parts.join('\n')}`;
}
