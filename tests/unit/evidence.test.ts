// A run's evidence log is tamper-evident (verify names the first edited, deleted or moved line, or the altered screenshot), ends in a sealed closing line whose head (or HMAC) catches a rewritten, truncated or extended log, and never holds a secret value.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evidenceVerifyCommand, EXIT_TAMPERED, EXIT_UNANCHORED } from '../../runner/cli/evidence.ts';
import { Journal } from '../../runner/engine/journal.ts';
import { Evidence, EvidenceError, headFromJournal, LOG_FILE, verifyEvidence } from '../../runner/evidence.ts';
import { Masker } from '../../shared/secrets.ts';

const SECRET = 'Tr0ub4dor&3 horse';
const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);

let tmp: string;
let dir: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-evidence-'));
  dir = path.join(tmp, 'runs', 'r1');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const masker = (): Masker => new Masker([{ name: 'password', value: SECRET }]);
const logPath = (): string => path.join(dir, LOG_FILE);
const readLines = async (): Promise<string[]> => (await fs.readFile(logPath(), 'utf8')).split('\n').slice(0, -1);
const writeLines = (lines: string[]): Promise<void> => fs.writeFile(logPath(), lines.map((l) => l + '\n').join(''));

/** A ten-line log: plain lines with a screenshot at line 4 and screen text at line 7. */
async function tenLines(): Promise<Evidence> {
  const ev = await Evidence.create(dir, masker(), 'r1');
  for (let i = 1; i <= 10; i++) {
    if (i === 4) await ev.screenshot('member record', PNG);
    else if (i === 7) await ev.text('hold form', `Reason: LEGAL\nline ${i}`);
    else await ev.append('step', { i, screen: 'member_inquiry', note: `step ${i}` });
  }
  return ev;
}

async function allFiles(d: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) out.push(p, ...(await allFiles(p)));
    else out.push(p);
  }
  return out;
}

describe('Evidence', () => {
  it('writes a chain that verifies, with its head', async () => {
    const ev = await tenLines();
    const head = ev.head;
    await ev.close();
    const v = await verifyEvidence(dir);
    expect(v).toEqual({ ok: true, lines: 10, head, run: 'r1', seal: null, anchored_by: [] });
    const lines = await readLines();
    const first = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
    expect(first).toMatchObject({ seq: 1, run: 'r1', kind: 'step', prev: '0'.repeat(64) });
    const shot = JSON.parse(lines[3] ?? '') as { kind: string; data: { file: string } };
    expect(shot.kind).toBe('screenshot');
    expect(shot.data.file).toBe('shots/4-member_record.png');
    expect(await fs.readFile(path.join(dir, shot.data.file))).toEqual(Buffer.from(PNG));
  });

  for (const k of [1, 2, 4, 7, 9, 10]) {
    it(`flipping one byte anywhere in line ${k} fails verify at exactly line ${k}`, async () => {
      await (await tenLines()).close();
      const lines = await readLines();
      const line = lines[k - 1] ?? '';
      for (const at of [0, 5, Math.floor(line.length / 2), line.length - 20, line.length - 1]) {
        const c = line[at] ?? '';
        const copy = [...lines];
        copy[k - 1] = line.slice(0, at) + (c === 'a' ? 'b' : 'a') + line.slice(at + 1);
        await writeLines(copy);
        const v = await verifyEvidence(dir);
        expect(v.ok, `byte ${at}`).toBe(false);
        if (!v.ok) expect(v.line, `byte ${at}: ${v.reason}`).toBe(k);
      }
    });
  }

  it('deleting line k fails at line k; deleting the last line changes the head', async () => {
    const ev = await tenLines();
    const head = ev.head;
    await ev.close();
    const lines = await readLines();
    for (const k of [1, 3, 5, 9]) {
      await writeLines(lines.filter((_, i) => i !== k - 1));
      expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: k });
    }
    // An unkeyed chain cannot see its own end cut off; the head the run reported can.
    await writeLines(lines.slice(0, -1));
    const v = await verifyEvidence(dir);
    expect(v.ok && v.head !== head && v.lines === 9).toBe(true);
  });

  it('reordering lines k and k+1 fails at line k', async () => {
    await (await tenLines()).close();
    const lines = await readLines();
    for (const k of [1, 4, 9]) {
      const copy = [...lines];
      [copy[k - 1], copy[k]] = [lines[k] ?? '', lines[k - 1] ?? ''];
      await writeLines(copy);
      const v = await verifyEvidence(dir);
      expect(v).toMatchObject({ ok: false, line: k });
    }
  });

  it('editing a screenshot or deleting a text file fails at the line that names it', async () => {
    await (await tenLines()).close();
    const shot = path.join(dir, 'shots/4-member_record.png');
    const bytes = await fs.readFile(shot);
    bytes[10] = (bytes[10] ?? 0) ^ 0xff;
    await fs.writeFile(shot, bytes);
    expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: 4, reason: expect.stringContaining('file hash mismatch') as string });
    await fs.writeFile(shot, PNG);
    expect((await verifyEvidence(dir)).ok).toBe(true);
    await fs.rm(path.join(dir, 'text/7-hold_form.txt'));
    expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: 7, reason: expect.stringContaining('missing file') as string });
  });

  it('reports a torn last line and an absent log', async () => {
    await (await tenLines()).close();
    const text = await fs.readFile(logPath(), 'utf8');
    await fs.writeFile(logPath(), text.slice(0, -30));
    expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: 10 });
    expect(await verifyEvidence(path.join(tmp, 'nowhere'))).toMatchObject({ ok: false, line: 0 });
  });

  it('never writes the secret value to any file, even nested, URL-encoded, JSON-escaped or in names', async () => {
    const ev = await Evidence.create(dir, masker(), 'r1');
    await ev.append('signon', {
      password: SECRET,
      nested: { list: [`pw=${SECRET}`, { url: `https://bank.test/?pw=${encodeURIComponent(SECRET)}` }] },
      form: new URLSearchParams({ pw: SECRET }).toString(),
      json: JSON.stringify({ pw: SECRET }),
      [SECRET]: 'as a key',
    });
    await ev.append(`kind ${SECRET}`, { html: SECRET.replace('&', '&amp;') });
    await ev.text(`screen ${SECRET}`, `Operator: CLERK1\nPassword: ${SECRET}\n`);
    await ev.screenshot(`shot ${SECRET}`, PNG);
    await ev.close();
    expect((await verifyEvidence(dir)).ok).toBe(true);
    const forms = [SECRET, encodeURIComponent(SECRET), 'Tr0ub4dor', 'horse', JSON.stringify(SECRET).slice(1, -1)];
    const files = await allFiles(dir);
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files) {
      for (const form of forms) expect(path.relative(dir, f), f).not.toContain(form);
      if ((await fs.stat(f)).isDirectory()) continue;
      const content = (await fs.readFile(f)).toString('latin1');
      for (const form of forms) expect(content, `${f} holds ${form}`).not.toContain(form);
    }
    expect(await fs.readFile(logPath(), 'utf8')).toContain('[secret:password]');
  });

  it('serialises concurrent appends into one unbroken chain', async () => {
    const ev = await Evidence.create(dir, masker(), 'r1');
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 60; i++) {
      if (i % 10 === 3) work.push(ev.screenshot(`s${i}`, PNG));
      else if (i % 10 === 6) work.push(ev.text(`t${i}`, `text ${i}`));
      else work.push(ev.append('tick', { i }));
    }
    await Promise.all(work);
    await ev.close();
    expect(await verifyEvidence(dir)).toMatchObject({ ok: true, lines: 60 });
  });

  it('refuses a directory holding another run, and continues the chain of the same run', async () => {
    const ev = await Evidence.create(dir, masker(), 'r1');
    await ev.append('a', {});
    await ev.close();
    const err = await Evidence.create(dir, masker(), 'r2').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EvidenceError);
    expect((err as EvidenceError).code).toBe('EVIDENCE_OTHER_RUN');
    const again = await Evidence.create(dir, masker(), 'r1');
    await again.append('b', {});
    await again.close();
    expect(await verifyEvidence(dir)).toMatchObject({ ok: true, lines: 2 });
    await expect(again.append('c', {})).rejects.toMatchObject({ code: 'EVIDENCE_CLOSED' });
  });
});

const KEY = 'k3y-for-the-seal-0123456789abcdef';
const sha = (t: string): string => createHash('sha256').update(t).digest('hex');

/** What a forger who knows the format does: re-hash every line from the first, so the chain is intact again. */
function rechain(lines: string[], edit: (line: Record<string, unknown>, n: number) => void = () => undefined): string[] {
  let prev = '0'.repeat(64);
  return lines.map((text, i) => {
    const { hash: _h, ...body } = JSON.parse(text) as Record<string, unknown>;
    body['seq'] = i + 1;
    body['prev'] = prev;
    edit(body, i + 1);
    if (body['kind'] === 'seal') body['data'] = { ...(body['data'] as object), lines: i, head: prev };
    const b = JSON.stringify(body);
    const line = `${b.slice(0, -1)},"hash":"${sha(b)}"}`;
    prev = sha(line);
    return line;
  });
}

/** A sealed ten-line log (plus its closing line); returns the head the receipt would carry. */
async function sealedLog(key?: string): Promise<string> {
  const ev = await tenLines();
  return ev.seal('SUCCESS', key);
}

describe('the sealed closing line', () => {
  it('closes the log with its line count, the head before it and the word; its hash is the anchor', async () => {
    const ev = await tenLines();
    const before = ev.head;
    const head = await ev.seal('SUCCESS');
    const lines = await readLines();
    expect(lines).toHaveLength(11);
    expect(JSON.parse(lines[10] ?? '')).toMatchObject({ seq: 11, kind: 'seal', data: { lines: 10, head: before, word: 'SUCCESS' }, prev: before });
    expect(JSON.parse(lines[10] ?? '').data).not.toHaveProperty('hmac');
    expect(head).toBe(sha(lines[10] ?? ''));
    expect(await verifyEvidence(dir, { head })).toMatchObject({ ok: true, lines: 11, head, seal: { word: 'SUCCESS' }, anchored_by: ['head'] });
    await expect(ev.append('late', {})).rejects.toMatchObject({ code: 'EVIDENCE_CLOSED' });
    await expect(Evidence.create(dir, masker(), 'r1')).rejects.toMatchObject({ code: 'EVIDENCE_SEALED' });
  });

  it('a recomputed chain is caught with the head or the key, and is "unanchored" without', async () => {
    const head = await sealedLog(KEY);
    const forged = rechain(await readLines(), (l, n) => {
      if (n === 3) l['data'] = { i: 3, screen: 'member_inquiry', note: 'nothing to see' };
    });
    await writeLines(forged);
    const bare = await verifyEvidence(dir);
    expect(bare).toMatchObject({ ok: true, anchored_by: [] });
    expect(await verifyEvidence(dir, { head })).toMatchObject({ ok: false, line: 11, reason: expect.stringContaining('anchor') as string });
    expect(await verifyEvidence(dir, { key: KEY })).toMatchObject({ ok: false, line: 11, reason: expect.stringContaining('HMAC does not match') as string });
    // Stripping the HMAC does not help a forger when the key is given.
    await writeLines(rechain(forged, (l) => {
      if (l['kind'] === 'seal') l['data'] = { lines: 0, head: '', word: 'SUCCESS' };
    }));
    expect(await verifyEvidence(dir, { key: KEY })).toMatchObject({ ok: false, reason: expect.stringContaining('no HMAC') as string });
  });

  it('a clean truncation is caught with the head or the key, and is "unanchored" without', async () => {
    const head = await sealedLog(KEY);
    const lines = await readLines();
    for (const keep of [10, 7, 1]) {
      await writeLines(lines.slice(0, keep));
      expect(await verifyEvidence(dir)).toMatchObject({ ok: true, lines: keep, seal: null, anchored_by: [] });
      expect(await verifyEvidence(dir, { head })).toMatchObject({ ok: false, line: keep });
      expect(await verifyEvidence(dir, { key: KEY })).toMatchObject({ ok: false, line: keep, reason: expect.stringContaining('no closing line') as string });
    }
  });

  it('a forged line appended after the seal is caught; re-sealed after it, it is caught with the head or the key', async () => {
    const head = await sealedLog(KEY);
    const lines = await readLines();
    const extra = JSON.stringify({ seq: 12, at: new Date().toISOString(), run: 'r1', kind: 'step', data: { note: 'forged' }, prev: sha(lines[10] ?? '') });
    const appended = [...lines, `${extra.slice(0, -1)},"hash":"${sha(extra)}"}`];
    await writeLines(appended);
    expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: 12, reason: expect.stringContaining('after the closing line') as string });
    // The careful forger moves the closing line to the end and recomputes it.
    const resealed = rechain([...lines.slice(0, 10), appended[11] ?? '', lines[10] ?? '']);
    await writeLines(resealed);
    expect(await verifyEvidence(dir)).toMatchObject({ ok: true, lines: 12, seal: { lines: 11 }, anchored_by: [] });
    expect(await verifyEvidence(dir, { head })).toMatchObject({ ok: false, line: 12 });
    expect(await verifyEvidence(dir, { key: KEY })).toMatchObject({ ok: false, line: 12, reason: expect.stringContaining('HMAC') as string });
    expect(await verifyEvidence(dir, { key: KEY, head })).toMatchObject({ ok: false });
  });

  it('a closing line that does not close what precedes it fails at that line', async () => {
    await sealedLog();
    const lines = await readLines();
    const body = JSON.parse(lines[10] ?? '') as Record<string, unknown>;
    const { hash: _h, ...rest } = body;
    rest['data'] = { lines: 3, head: rest['prev'], word: 'SUCCESS' };
    const b = JSON.stringify(rest);
    await writeLines([...lines.slice(0, 10), `${b.slice(0, -1)},"hash":"${sha(b)}"}`]);
    expect(await verifyEvidence(dir)).toMatchObject({ ok: false, line: 11, reason: expect.stringContaining('does not close this log') as string });
  });

  it('with a key, the closing line carries an HMAC the same key reproduces and another does not; the key is in no file', async () => {
    const head = await sealedLog(KEY);
    const seal = JSON.parse((await readLines())[10] ?? '') as { data: { hmac?: string } };
    expect(seal.data.hmac).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyEvidence(dir, { key: KEY })).toMatchObject({ ok: true, anchored_by: ['hmac'] });
    expect(await verifyEvidence(dir, { key: KEY, head })).toMatchObject({ ok: true, anchored_by: ['head', 'hmac'] });
    expect(await verifyEvidence(dir, { key: `${KEY}x` })).toMatchObject({ ok: false, reason: expect.stringContaining('HMAC') as string });
    for (const f of await allFiles(dir)) {
      if ((await fs.stat(f)).isDirectory()) continue;
      expect((await fs.readFile(f)).toString('latin1')).not.toContain(KEY);
    }
  });
});

describe('handrail evidence verify', () => {
  const run = async (flags: Parameters<typeof evidenceVerifyCommand>[1], env: Record<string, string> = {}): Promise<{ code: number; out: string }> => {
    let out = '';
    const code = await evidenceVerifyCommand(dir, flags, env, (l) => (out += `${l}\n`));
    return { code, out };
  };

  it('says unanchored without an anchor (exit 3 only with --require-anchor), anchored with --head or the key, tampered on a mismatch', async () => {
    const head = await sealedLog(KEY);
    expect(await run({})).toMatchObject({ code: 0, out: expect.stringMatching(/^intact: 11 lines, sealed SUCCESS, unanchored/) as string });
    expect((await run({ requireAnchor: true })).code).toBe(EXIT_UNANCHORED);
    expect(await run({ head, requireAnchor: true })).toMatchObject({ code: 0, out: expect.stringContaining('anchored by head') as string });
    expect(await run({ requireAnchor: true }, { HANDRAIL_EVIDENCE_KEY: KEY })).toMatchObject({ code: 0, out: expect.stringContaining('anchored by HMAC') as string });
    const wrongKey = await run({}, { HANDRAIL_EVIDENCE_KEY: 'another-key-altogether' });
    expect(wrongKey.code).toBe(EXIT_TAMPERED);
    expect(wrongKey.out).not.toContain('another-key-altogether');
    expect((await run({ head: 'f'.repeat(64) })).code).toBe(EXIT_TAMPERED);
    await expect(run({ head: 'nope' })).rejects.toMatchObject({ code: 'USAGE' });
  });

  it('--journal checks the log against the head the journal recorded for its run', async () => {
    const head = await sealedLog();
    const journalFile = path.join(tmp, 'journal.jsonl');
    const j = await Journal.open(journalFile, { key: 'card.0123456789abcdef0123456789abcdef', card: 'card', content_hash: `sha256:${'0'.repeat(64)}` });
    await j.receipt('r0', { run_id: 'r0', evidence_head: 'a'.repeat(64) });
    await j.receipt('r1', { run_id: 'r1', word: 'SUCCESS' });
    await j.receipt('r1', { run_id: 'r1', word: 'SUCCESS', evidence_head: head });
    await j.close();
    expect(await headFromJournal(journalFile, 'r1')).toBe(head);
    expect(await headFromJournal(journalFile, 'r9')).toBeUndefined();
    expect(await run({ journal: journalFile, requireAnchor: true })).toMatchObject({ code: 0, out: expect.stringContaining('anchored by journal head') as string });
    const lines = await readLines();
    await writeLines(lines.slice(0, 10));
    expect(await run({ journal: journalFile })).toMatchObject({ code: EXIT_TAMPERED, out: expect.stringContaining('tampered: line 10') as string });
    await writeLines(lines);
    const other = path.join(tmp, 'other.jsonl');
    const o = await Journal.open(other, { key: 'card.fedcba9876543210fedcba9876543210', card: 'card', content_hash: `sha256:${'0'.repeat(64)}` });
    await o.close();
    expect(await run({ journal: other })).toMatchObject({ code: EXIT_TAMPERED, out: expect.stringContaining('records no evidence head for run r1') as string });
    // A damaged journal is no anchor at all: it is refused, naming the damage.
    await fs.writeFile(other, '');
    await expect(run({ journal: other })).rejects.toThrow(/damaged at line 1/);
  });
});
