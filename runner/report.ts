// One run as one self-contained HTML page for a reviewer: the typed word and receipt, each step with the screen it
// acted on and the rung that resolved its target, the screenshots, and whether the evidence chain verifies and is
// sealed. Built only from the evidence directory (already masked when it was written): nothing is added that the
// evidence does not hold, every string is escaped, images are data: URIs, and a Content-Security-Policy forbids
// scripts and every network fetch, so the file can be mailed, archived and opened offline.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
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

/** The log's lines that parse; a line that does not is shown raw in the log table (the verdict names it). */
async function readLines(dir: string): Promise<{ lines: Line[]; raw: { n: number; text: string }[] }> {
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

const CSS = `
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
export async function renderReport(dir: string, anchor: Anchor = {}): Promise<RunReport> {
  const verdict = await verifyEvidence(dir, anchor);
  const { lines, raw } = await readLines(dir);
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
<h2>Receipt</h2>
${end ? `<pre>${esc(JSON.stringify(end.data, null, 2))}</pre>` : '<p>The log has no <code>run_end</code> line.</p>'}
<h2>Evidence log</h2>
<table><thead><tr><th>line</th><th>at</th><th>kind</th><th>data</th></tr></thead><tbody>${log.join('')}</tbody></table>
</main>
</body></html>
`;
  return { html, verdict, run, word };
}
