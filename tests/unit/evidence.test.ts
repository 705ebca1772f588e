// A run's evidence log is tamper-evident (verify names the first edited, deleted or moved line, or the altered screenshot) and never holds a secret value.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Evidence, EvidenceError, LOG_FILE, verifyEvidence } from '../../runner/evidence.ts';
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
    expect(v).toEqual({ ok: true, lines: 10, head });
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
