// `handrail report` turns one run's evidence into one self-contained page a reviewer opens offline: the word,
// the steps with their screens and rungs, the screenshots inline, the chain's verdict and seal — escaped, script-free,
// nothing fetched, and no secret (the evidence is masked, and the page holds only what the evidence holds).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Journal } from '../../runner/engine/journal.ts';
import { Evidence, LOG_FILE } from '../../runner/evidence.ts';
import { driftOf, renderIndex, renderReport, summarizeRun, type RunSummary } from '../../runner/report.ts';
import { Masker } from '../../shared/secrets.ts';
import { handrailOut } from '../e2e/support/cli.ts';

const SECRET = 'hunter2-correct-horse-battery';
// A 1×1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
let tmp: string;

async function run(dir: string): Promise<void> {
  const ev = await Evidence.create(dir, new Masker([{ name: 'password', value: SECRET }]), 'run-report-1');
  await ev.append('run_start', { card: 'plumbline_place_hold', version: 1, inputs: ['password'] });
  await ev.append('screen', { label: 'signon', how: 'exact', signature: 'fb479230c60253df', url: 'http://127.0.0.1:1/signon' });
  await ev.screenshot('signon', PNG);
  await ev.append('resolve', { step: 'post_hold', target: 'post_button', ok: true, rung: 'role_name', control: { role: 'button', name: 'F10=Post <Hold>' } });
  await ev.append('step', { step: 'post_hold', effect: 'commit', verb: 'invoke', rung: 'role_name', screen_after: 'hold_result', settle_ms: 79 });
  await ev.append('step', { step: 'typed', effect: 'stage', verb: 'set_value', rung: 'label', screen_after: 'signon', settle_ms: 0, note: `typed ${SECRET}` });
  await ev.append('run_end', { word: 'SUCCESS', code: 'OK', message: 'ended on hold_result "quoted" & <b>bold</b><script>alert(1)</script>', run_id: 'run-report-1' });
  await ev.seal('SUCCESS');
  await ev.close();
}

/** One run of a three-step card: `rung` resolves the member link, `unknown` adds a screen nobody could name. */
async function runOf(dir: string, id: string, opts: { rung: string; word?: string; ms: number; unknown?: boolean; note?: string }): Promise<string> {
  const ev = await Evidence.create(dir, new Masker([{ name: 'password', value: SECRET }]), id);
  await ev.append('run_start', { card: 'plumbline_place_hold', version: 1, inputs: ['password'] });
  await ev.append('screen', { label: 'signon', how: 'exact', signature: 'fb47', url: 'http://127.0.0.1:1/signon' });
  await ev.append('resolve', { step: 'sign_on', target: 'sign_on_button', ok: true, rung: 'role_name' });
  await ev.append('step', { step: 'sign_on', effect: 'navigate', verb: 'invoke', rung: 'role_name', screen_after: 'search', settle_ms: 5 });
  await ev.append('screen', { label: 'search', how: opts.unknown ? 'similar' : 'exact', signature: 'aa01' });
  await ev.append('resolve', { step: 'open_member', target: 'member_link', ok: true, rung: opts.rung });
  await ev.append('step', { step: 'open_member', effect: 'navigate', verb: 'invoke', rung: opts.rung, screen_after: opts.unknown ? null : 'member', settle_ms: 5, note: opts.note ?? '' });
  if (opts.unknown) await ev.append('screen_unrecognised', { step: 'open_member', label: null, signature: 'dead01', paths: [], text: 'Scheduled maintenance' });
  const word = opts.word ?? 'SUCCESS';
  await ev.append('run_end', { word, code: word === 'SUCCESS' ? 'OK' : 'SCREEN_MISMATCH', message: 'm', run_id: id, duration_ms: opts.ms, card: 'plumbline_place_hold' });
  await ev.seal(word);
  await ev.close();
  return (await fs.readFile(path.join(dir, LOG_FILE), 'utf8')).trim().split('\n').length.toString();
}

function cli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; out: string }> {
  return handrailOut(args, env);
}

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-report-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('handrail report', () => {
  it('shows the word, the steps with screen and rung, the screenshot inline, the verdict and the seal', async () => {
    const dir = path.join(tmp, 'ok');
    await run(dir);
    const { html, verdict, word } = await renderReport(dir);
    expect(verdict.ok).toBe(true);
    expect(word).toBe('SUCCESS');
    expect(html).toContain('<span class="word w-SUCCESS">SUCCESS</span>');
    expect(html).toContain('Evidence chain intact');
    expect(html).toContain('sealed <code>SUCCESS</code>');
    expect(html).toMatch(/<td>signon<\/td><td>invoke<\/td><td>commit<\/td><td>post_button → button &#39;F10=Post &lt;Hold&gt;&#39;<\/td><td>role_name<\/td><td>hold_result<\/td>/);
    expect(html).toContain(`src="data:image/png;base64,${PNG.toString('base64')}"`);
  });

  it('escapes everything, runs no script and fetches nothing', async () => {
    const { html } = await renderReport(path.join(tmp, 'ok'));
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;');
    expect(html).toContain(`content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/\b(src|href)\s*=\s*["']?(https?:|\/\/)/i);
    expect(html).not.toMatch(/<link|@import|url\(/i);
  });

  it('holds no secret: the evidence masked it and the page adds nothing', async () => {
    const { html } = await renderReport(path.join(tmp, 'ok'));
    expect(html).not.toContain(SECRET);
    expect(html).toContain('typed ');
  });

  it('a tampered log: the page says where, and the command exits 1 beside an untouched evidence dir', async () => {
    const dir = path.join(tmp, 'tampered');
    await run(dir);
    const log = path.join(dir, LOG_FILE);
    const lines = (await fs.readFile(log, 'utf8')).split('\n');
    lines[4] = (lines[4] ?? '').replace('"commit"', '"read"');
    await fs.writeFile(log, lines.join('\n'));
    const { html, verdict } = await renderReport(dir);
    expect(verdict).toMatchObject({ ok: false, line: 5 });
    expect(html).toContain('Evidence does not verify');
    expect(html).toContain('line 5: line hash mismatch');
    const r = await cli(['report', dir]);
    expect(r.code).toBe(1);
    expect(r.out).toContain(`${dir}.html`);
    expect(r.out).toContain('does NOT verify');
    expect((await fs.readdir(dir)).sort()).toEqual([LOG_FILE, 'shots', 'text']);
  });

  it('a directory that holds no evidence is a one-line usage error', async () => {
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(path.join(empty, 'not-a-run'), { recursive: true });
    const r = await cli(['report', empty]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^handrail: .* is not an evidence directory/);
    expect(r.out).not.toMatch(/\n\s+at /);
  });
});

describe('handrail report over many runs', () => {
  it('counts words, sums durations and names drift: a rung that changed since the last run of the card, a screen not recognised', async () => {
    const root = path.join(tmp, 'many');
    await runOf(path.join(root, 'a'), 'run-20261201T090000-aaaaaa', { rung: 'role_name', ms: 1000 });
    await runOf(path.join(root, 'b'), 'run-20261201T090100-bbbbbb', { rung: 'role_name', ms: 3000 });
    await runOf(path.join(root, 'c'), 'run-20261201T090200-cccccc', { rung: 'label', ms: 2000, word: 'FAILED', unknown: true });
    const runs: RunSummary[] = [];
    for (const d of ['c', 'a', 'b']) runs.push(await summarizeRun(path.join(root, d)));
    const drift = driftOf(runs);
    const byId = (id: string): string[] => drift.get(runs.find((r) => r.run.endsWith(id)) ?? runs[0]!) ?? [];
    expect(byId('aaaaaa')).toEqual([]);
    expect(byId('bbbbbb')).toEqual([]);
    expect(byId('cccccc')).toEqual(['member_link: rung role_name → label', 'screen not recognised after open_member: dead01']);
    const html = renderIndex(runs, new Map(runs.map((r) => [r, `${path.basename(r.dir)}.html`])));
    expect(html).toMatch(/<span class="word w-SUCCESS">SUCCESS<\/span><\/td><td class="num">2<\/td>/);
    expect(html).toMatch(/<span class="word w-FAILED">FAILED<\/span><\/td><td class="num">1<\/td>/);
    // median 2,000 · fastest 1,000 · slowest 3,000 · total 6,000
    expect(html).toContain('<td class="num">2,000 ms</td><td class="num">1,000 ms</td><td class="num">3,000 ms</td><td class="num">6,000 ms</td>');
    expect(html).toContain('<a href="c.html">run-20261201T090200-cccccc</a>');
    expect(html).toContain('3 runs · every evidence log verifies · 1 with drift');
    expect(html).toContain('named by similarity: search');
    expect(html).not.toMatch(/<script/i);
  });

  it('the command writes every run\'s page and the index beside a directory of runs, and exits 1 when one log does not verify', async () => {
    const root = path.join(tmp, 'cli-many');
    await runOf(path.join(root, 'a'), 'run-20261201T100000-aaaaaa', { rung: 'role_name', ms: 1000 });
    await runOf(path.join(root, 'b'), 'run-20261201T100100-bbbbbb', { rung: 'role_name', ms: 1200 });
    const ok = await cli(['report', root]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain(`${root}.html`);
    const index = await fs.readFile(`${root}.html`, 'utf8');
    expect(index).toContain('<a href="cli-many/a.html">run-20261201T100000-aaaaaa</a>');
    expect(await fs.readFile(path.join(root, 'a.html'), 'utf8')).toContain('<a href="../cli-many.html">← all runs</a>');
    // Break run b's chain: the index says so and the command fails.
    const log = path.join(root, 'b', LOG_FILE);
    await fs.writeFile(log, (await fs.readFile(log, 'utf8')).replace('"role_name"', '"css"'));
    const bad = await cli(['report', root]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/run-20261201T100100-bbbbbb: evidence does NOT verify \(line \d+/);
    expect(await fs.readFile(`${root}.html`, 'utf8')).toContain('1 evidence log does not verify');
  });

  it('finds run ids in the journals under the state home, anchors each by the head its receipt recorded, and masks the operator\'s secrets', async () => {
    const home = path.join(tmp, 'home');
    const runs = path.join(tmp, 'elsewhere');
    const ids = ['run-20261201T110000-aaaaaa', 'run-20261201T110100-bbbbbb'];
    const other = 'an-operator-secret-value';
    for (const [i, id] of ids.entries()) {
      const dir = path.join(runs, id);
      // A log written without this secret's masker: the report still never shows it.
      await runOf(dir, id, { rung: 'role_name', ms: 900, note: `typed ${other}` });
      const { verifyEvidence } = await import('../../runner/evidence.ts');
      const v = await verifyEvidence(dir);
      if (!v.ok) throw new Error('setup');
      const key = `plumbline_place_hold.${String(i).repeat(32)}`;
      const j = await Journal.open(path.join(home, 'journals', `${key}.jsonl`), { key, card: 'plumbline_place_hold', content_hash: 'c'.repeat(64) });
      await j.receipt(id, { word: 'SUCCESS', run_id: id, evidence: dir, evidence_head: v.head });
      await j.close();
    }
    const env = { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_OTHER: other };
    const one = await cli(['report', ids[0]!, ids[1]!, '-o', path.join(tmp, 'by-id.html')], env);
    expect(one.code).toBe(0);
    const index = await fs.readFile(path.join(tmp, 'by-id.html'), 'utf8');
    expect(index.match(/intact, anchored by head/g)).toHaveLength(2);
    const page = await fs.readFile(path.join(runs, `${ids[0]}.html`), 'utf8');
    expect(page).toContain('anchored by head');
    expect(page).not.toContain(other);
    expect(page).toContain('typed [secret:other]');
    // One run id alone: its page, anchored by its receipt's head.
    const byId = await cli(['report', ids[1]!], env);
    expect(byId.code).toBe(0);
    expect(byId.out).toContain(`${path.join(runs, ids[1]!)}.html · SUCCESS · evidence intact\n`);
    // No argument: every run the journals know.
    const all = await cli(['report', '-o', path.join(tmp, 'all.html')], env);
    expect(all.code).toBe(0);
    expect(await fs.readFile(path.join(tmp, 'all.html'), 'utf8')).toContain('2 runs');
    const unknown = await cli(['report', 'run-nope'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.out).toMatch(/^handrail: NOT_EVIDENCE: run-nope is neither an evidence directory nor a run id/);
  });
});
