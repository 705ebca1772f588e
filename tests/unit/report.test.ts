// `handrail report` turns one run's evidence into one self-contained page a reviewer opens offline: the word,
// the steps with their screens and rungs, the screenshots inline, the chain's verdict and seal — escaped, script-free,
// nothing fetched, and no secret (the evidence is masked, and the page holds only what the evidence holds).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Evidence, LOG_FILE } from '../../runner/evidence.ts';
import { renderReport } from '../../runner/report.ts';
import { Masker } from '../../shared/secrets.ts';

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

function cli(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'runner/cli/main.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
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
    const r = await cli(['report', tmp]);
    expect(r.code).toBe(2);
    expect(r.out).toMatch(/^handrail: .* is not an evidence directory/);
    expect(r.out).not.toMatch(/\n\s+at /);
  });
});
