// How verify reads its plates and asks its judges: a CSV of inputs, a URL judge that asks the record store, a command judge fed the plate and receipt on stdin, and a lifecycle written back without disturbing the card.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandJudge, judgeFrom, urlJudge } from '../../runner/judge.ts';
import { parsePlatesCsv, unconfirmedCommits, writeLifecycle } from '../../runner/verify.ts';
import { Capability } from '../../shared/schema/index.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

const receipt = RunResult.parse({
  word: 'SUCCESS', code: 'OK', retryable: false, message: 'all steps done', card: 'demo', run_id: 'run-1',
  outputs: { confirmation: 'HX-000001' }, llm_calls: 0, classifier_calls: 0, rungs: {}, screen: 'posted', steps_done: 3,
  evidence: null, duration_ms: 1,
});

describe('plates CSV', () => {
  it('reads a header of input names and one plate per row, with quotes, CRLF and blank lines', () => {
    const text = '\uFEFFmember_number,share_id,note\r\n400118,400118-S0005,"a, ""quoted"" note"\r\n\r\n400337,400337-S0001,plain\n';
    expect(parsePlatesCsv(text)).toEqual([
      { member_number: '400118', share_id: '400118-S0005', note: 'a, "quoted" note' },
      { member_number: '400337', share_id: '400337-S0001', note: 'plain' },
    ]);
  });

  it('refuses a ragged row, a duplicate column and an unclosed quote, naming where', () => {
    expect(() => parsePlatesCsv('a,b\n1\n', 'p.csv')).toThrow('p.csv: row 2 has 1 fields, the header has 2');
    expect(() => parsePlatesCsv('a,a\n1,2\n')).toThrow('column "a" appears twice');
    expect(() => parsePlatesCsv('a\n"1\n')).toThrow('never closed');
    expect(() => parsePlatesCsv('')).toThrow('is empty');
  });

  it('the checked-in plates are the three members the hand-written card was verified on', async () => {
    const plates = parsePlatesCsv(await readFile('tests/fixtures/plates.csv', 'utf8'));
    expect(plates.map((p) => p['share_id'])).toEqual(['400118-S0005', '400337-S0001', '400445-S0001']);
  });
});

describe('the URL judge', () => {
  let server: Server;
  let base: string;
  const asked: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(req.url ?? '');
      const share = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
      if (share === 'missing') return void res.writeHead(404).end('{"error":"UNKNOWN_SHARE"}');
      if (share === 'garbage') return void res.writeHead(200).end('<html>');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ held: share === 'held 1', postPresses: 1 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('says yes only for a 2xx JSON answer with held: true, filling and encoding the plate into the URL', async () => {
    const judge = urlJudge(`${base}/_judge/holds/{{share_id}}`);
    expect(await judge({ share_id: 'held 1' }, receipt)).toMatchObject({ ok: true });
    expect(asked.at(-1)).toBe('/_judge/holds/held%201');
    expect(await judge({ share_id: 'free' }, receipt)).toMatchObject({ ok: false });
    expect(await judge({ share_id: 'missing' }, receipt)).toMatchObject({ ok: false, detail: expect.stringContaining('404') as string });
    expect(await judge({ share_id: 'garbage' }, receipt)).toMatchObject({ ok: false, detail: expect.stringContaining('not JSON') as string });
    expect(await judge({ member: '1' }, receipt)).toMatchObject({ ok: false, detail: expect.stringContaining('{{share_id}}') as string });
  });

  it('says no, with the reason, when nobody answers', async () => {
    expect(await urlJudge('http://127.0.0.1:9/x')({}, receipt)).toMatchObject({ ok: false, detail: expect.stringContaining('unreachable') as string });
  });
});

describe('the command judge', () => {
  it('gets the plate and the receipt as JSON on stdin; exit 0 is yes', async () => {
    const judge = commandJudge(`node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);console.log(j.plate.share_id+" "+j.receipt.outputs.confirmation);process.exit(j.plate.share_id==="ok"?0:1)})'`);
    expect(await judge({ share_id: 'ok' }, receipt)).toEqual({ ok: true, detail: 'ok HX-000001' });
    expect(await judge({ share_id: 'no' }, receipt)).toEqual({ ok: false, detail: 'judge command said no (exit 1): no HX-000001' });
  });

  it('--judge picks the URL judge for http(s) and the command judge otherwise', async () => {
    expect(await judgeFrom('true')({}, receipt)).toMatchObject({ ok: true });
    expect(await judgeFrom('exit 3')({}, receipt)).toMatchObject({ ok: false, detail: 'judge command said no (exit 3)' });
  });
});

describe('writing the lifecycle back', () => {
  it('changes only the lifecycle, in the schema order, as 2-space JSON', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handrail-verify-'));
    try {
      const file = join(dir, 'card.json');
      const original = { ...minimalCard(), lifecycle: { state: 'draft', review_notes: ['add a business outcome'] } };
      await writeFile(file, JSON.stringify(original, null, 2));
      await writeLifecycle(file, { state: 'verified', review_notes: ['add a business outcome'], reliability: { k: 3, n: 3, at: '2026-11-30T00:00:00Z' } });
      const text = await readFile(file, 'utf8');
      expect(text).toBe(
        `${JSON.stringify({ ...original, lifecycle: { state: 'verified', reliability: { k: 3, n: 3, at: '2026-11-30T00:00:00Z' }, review_notes: ['add a business outcome'] } }, null, 2)}\n`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the commit steps no owner confirmed', () => {
    const c = minimalCard();
    c.lifecycle = { state: 'draft' };
    expect(unconfirmedCommits(Capability.parse(c))).toEqual([]);
    c.steps = c.steps.map((s) => (s.effect.kind === 'commit' ? { ...s, effect: { kind: 'commit' as const } } : s));
    expect(unconfirmedCommits(Capability.parse(c))).toEqual(['post']);
  });
});
