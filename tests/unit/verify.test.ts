// How verify reads its plates and asks its judges: a CSV of inputs, a URL or command judge asked before and after each plate (public inputs only, a minimal environment, its words masked), a verdict that fails whenever the word and the judge disagree and refuses a plate that cannot show the change, and a lifecycle written back without disturbing the card.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandJudge, judgeEnv, judgeFrom, JudgeSpecError, unmet, urlJudge, type Judge, type JudgeRequest } from '../../runner/judge.ts';
import type { RunRequest } from '../../runner/run.ts';
import { parsePlatesCsv, unconfirmedCommits, verify, writeLifecycle } from '../../runner/verify.ts';
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
      const share = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.split('/').pop() ?? '');
      if (share === 'missing') return void res.writeHead(404).end('{"error":"UNKNOWN_SHARE"}');
      if (share === 'garbage') return void res.writeHead(200).end('<html>');
      if (share === 'list') return void res.writeHead(200).end('[1,2]');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ held: share === 'held 1', postPresses: 1 }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ask = (inputs: Record<string, string>, phase: 'before' | 'after' = 'after'): JudgeRequest => ({ card: 'demo', inputs, phase });

  it('answers the state the record gives, filling and encoding the plate into the URL and adding phase and card', async () => {
    const judge = urlJudge(`${base}/_judge/holds/{{share_id}}`);
    expect(await judge(ask({ share_id: 'held 1' }, 'before'))).toEqual({ ok: true, state: { held: true, postPresses: 1 } });
    expect(asked.at(-1)).toBe('/_judge/holds/held%201?phase=before&card=demo');
    expect(await urlJudge(`${base}/_judge/holds/{{input.share_id}}`)(ask({ share_id: 'free' }))).toEqual({ ok: true, state: { held: false, postPresses: 1 } });
    expect(asked.at(-1)).toBe('/_judge/holds/free?phase=after&card=demo');
  });

  it('gives no answer, with the reason, for another status, a body that is not a JSON object, an unfilled blank or silence', async () => {
    const judge = urlJudge(`${base}/_judge/holds/{{share_id}}`);
    expect(await judge(ask({ share_id: 'missing' }))).toMatchObject({ ok: false, detail: expect.stringContaining('404') as string });
    expect(await judge(ask({ share_id: 'garbage' }))).toMatchObject({ ok: false, detail: expect.stringContaining('not JSON') as string });
    expect(await judge(ask({ share_id: 'list' }))).toMatchObject({ ok: false, detail: expect.stringContaining('not a JSON object') as string });
    expect(await judge(ask({ member: '1' }))).toMatchObject({ ok: false, detail: expect.stringContaining('{{share_id}}') as string });
    expect(await urlJudge('http://127.0.0.1:9/x')(ask({}))).toMatchObject({ ok: false, detail: expect.stringContaining('unreachable') as string });
  });
});

const READ_STDIN = `let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const j=JSON.parse(s);`;

describe('the command judge', () => {
  it('gets {card, inputs, phase} as JSON on stdin and answers a JSON object on stdout', async () => {
    const judge = commandJudge(`node -e '${READ_STDIN}console.log(JSON.stringify({seen: j}))})'`);
    const req: JudgeRequest = { card: 'demo', inputs: { share_id: 'S1' }, phase: 'before' };
    expect(await judge(req)).toEqual({ ok: true, state: { seen: req } });
  });

  it('gives no answer on a non-zero exit or output that is not a JSON object', async () => {
    const req: JudgeRequest = { card: 'demo', inputs: {}, phase: 'after' };
    expect(await judgeFrom('echo "ledger offline" >&2; exit 3')(req)).toEqual({ ok: false, detail: 'judge command gave no answer (exit 3): ledger offline' });
    expect(await judgeFrom('echo yes')(req)).toMatchObject({ ok: false, detail: expect.stringContaining('not JSON') as string });
    expect(await judgeFrom('echo 42')(req)).toMatchObject({ ok: false, detail: expect.stringContaining('not a JSON object') as string });
  });

  it('runs with PATH, HOME, LANG and the allowlist only: never HANDRAIL_SECRET_*, ANTHROPIC_* or the evidence key', async () => {
    const planted = {
      HANDRAIL_SECRET_PASSWORD: 'pw-planted-9f3c', ANTHROPIC_API_KEY: 'sk-ant-planted', HANDRAIL_EVIDENCE_KEY: 'evkey-planted',
      LEDGER_URL: 'http://ledger.test', OTHER_THING: 'not allowed',
    };
    const saved = { ...process.env };
    Object.assign(process.env, planted);
    try {
      const judge = judgeFrom(`node -e 'console.log(JSON.stringify(process.env))'`, ['LEDGER_URL']);
      const answer = await judge({ card: 'demo', inputs: {}, phase: 'before' });
      if (!answer.ok) throw new Error(answer.detail);
      const names = Object.keys(answer.state);
      // PWD, SHLVL and _ are set by sh itself, not passed in.
      expect(names.filter((n) => !['PATH', 'HOME', 'LANG', 'LEDGER_URL', 'PWD', 'SHLVL', '_'].includes(n))).toEqual([]);
      expect(answer.state['LEDGER_URL']).toBe('http://ledger.test');
      expect(JSON.stringify(answer.state)).not.toMatch(/planted|not allowed/);
      expect(() => judgeEnv(['HANDRAIL_SECRET_PASSWORD'])).toThrow(JudgeSpecError);
      expect(() => judgeEnv(['ANTHROPIC_API_KEY'])).toThrow('never given secrets');
      expect(() => judgeEnv(['HANDRAIL_EVIDENCE_KEY'])).toThrow(JudgeSpecError);
    } finally {
      for (const k of Object.keys(planted)) delete process.env[k];
      Object.assign(process.env, saved);
    }
  });
});

describe('the expected change', () => {
  it('a state satisfies a side when every field (dotted paths too) equals its value with the plate filled in', () => {
    const state = { held: true, reason: 'LEGAL', hold: { by: 'OP1001' } };
    expect(unmet(state, { held: true, reason: '{{reason}}', 'hold.by': '{{input.operator_id}}' }, { reason: 'LEGAL', operator_id: 'OP1001' })).toEqual([]);
    expect(unmet(state, { held: true, reason: '{{reason}}' }, { reason: 'FRAUD_REVIEW' })).toEqual(['reason: wanted "FRAUD_REVIEW", judge says "LEGAL"']);
    expect(unmet(state, { held: 'true' }, {})).toHaveLength(1);
    expect(unmet({}, { held: false }, {})).toEqual(['held: wanted false, judge says (absent)']);
  });

  it('a card may declare it, with blanks naming declared public inputs only', () => {
    const withChange = (after: Record<string, string | boolean>): unknown => ({ ...minimalCard(), judge: { change: { before: { held: false }, after } } });
    expect(Capability.safeParse(withChange({ held: true, member: '{{member_number}}' })).success).toBe(true);
    const secret = Capability.safeParse(withChange({ held: true, pw: '{{input.password}}' }));
    expect(secret.success).toBe(false);
    expect(JSON.stringify(secret.error?.issues)).toContain('names a secret input');
    expect(JSON.stringify(Capability.safeParse(withChange({ held: true, x: '{{nope}}' })).error?.issues)).toContain('names no declared input');
    expect(Capability.safeParse(withChange({})).success).toBe(false);
  });
});

/**
 * The verdict, with the run and the record as fakes: `record` is what the judge reads; `run` decides what the
 * run does to the record and which word it says. The real thing (PLUMBLINE in Chromium) is in tests/e2e/verify.spec.ts.
 */
describe('the verdict: the word and the judge must tell the same story', () => {
  const SECRET = 'pw-for-the-plate-7731';
  const card = (): Capability =>
    Capability.parse({ ...minimalCard(), lifecycle: { state: 'draft' }, judge: { change: { before: { held: false }, after: { held: true, member: '{{member_number}}' } } } });
  type Plan = { word: RunResult['word']; change: boolean };

  function harness(record: Map<string, Record<string, unknown>>, plans: Plan[]) {
    const requests: JudgeRequest[] = [];
    const runs: RunRequest[] = [];
    const judge: Judge = (req) => {
      requests.push(req);
      return Promise.resolve({ ok: true, state: record.get(req.inputs['member_number'] ?? '') ?? { held: false } });
    };
    const run = (req: RunRequest): Promise<RunResult> => {
      runs.push(req);
      const plan = plans.shift() ?? { word: 'SUCCESS', change: false };
      const member = req.inputs['member_number'] ?? '';
      if (plan.change) record.set(member, { held: true, member, note: `by ${SECRET}` });
      const word = plan.word;
      return Promise.resolve(
        RunResult.parse({
          ...receipt, word, code: word === 'SUCCESS' ? 'OK' : 'ALREADY_PROCESSED', retryable: false, message: `the page said ${SECRET}`, run_id: `run-${runs.length}`,
          duration_ms: 1234, ...(word === 'SUCCESS' ? {} : { page_text: 'HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)' }),
        }),
      );
    };
    return { judge, run, requests, runs };
  }

  const go = (c: Capability, h: ReturnType<typeof harness>, plates: Record<string, string>[]) =>
    verify(c, { plates, judge: h.judge, run: h.run, env: { HANDRAIL_SECRET_PASSWORD: SECRET }, surfaceFactory: () => Promise.reject(new Error('no surface in unit tests')), evidenceRoot: '/tmp/handrail-unused' });

  it('a plate the record already shows in the after-state is refused as uninformative and not run', async () => {
    const record = new Map([['400226', { held: true, member: '400226' }]]);
    const h = harness(record, [{ word: 'SUCCESS', change: true }]);
    const report = await go(card(), h, [{ member_number: '400226' }, { member_number: '400118' }]);
    expect(h.runs.map((r) => r.inputs['member_number'])).toEqual(['400118']);
    expect(report.plates[0]).toMatchObject({ status: 'refused', word: null, clean: false, judge: { before: { held: true }, changed: null } });
    expect(report.plates[0]?.why).toContain('uninformative: the record already shows the after-state {"held":true,"member":"400226"} before the run');
    expect(report).toMatchObject({ verified: false, k: 1, n: 2 });
    expect(report.summary).toContain('plate 1 refused as uninformative');
  });

  it('tells a progress bar each plate as soon as its report is final, refused plates included, in order', async () => {
    const record = new Map([['400226', { held: true, member: '400226' }]]);
    const h = harness(record, [{ word: 'SUCCESS', change: true }]);
    const seen: string[] = [];
    await verify(card(), {
      plates: [{ member_number: '400226' }, { member_number: '400118' }], judge: h.judge, run: h.run, env: {}, evidenceRoot: '/tmp/handrail-unused',
      plateDone: (p, total) => seen.push(`${p.n}/${total} ${p.status}`),
    });
    expect(seen).toEqual(['1/2 refused', '2/2 clean']);
  });

  it('a plate not in the before-state is refused too', async () => {
    const h = harness(new Map([['400226', { held: 'maybe' }]]), []);
    const report = await go(card(), h, [{ member_number: '400226' }]);
    expect(h.runs).toHaveLength(0);
    expect(report.plates[0]).toMatchObject({ status: 'refused' });
    expect(report.plates[0]?.why).toContain('not in the before-state');
  });

  it('a run that did nothing is not passed, however loudly the word says SUCCESS', async () => {
    const h = harness(new Map(), [{ word: 'SUCCESS', change: false }]);
    const report = await go(card(), h, [{ member_number: '400118' }]);
    expect(report.plates[0]).toMatchObject({ status: 'failed', word: 'SUCCESS', clean: false, judge: { changed: false, agrees: false } });
    expect(report.plates[0]?.why).toMatch(/the word says SUCCESS OK, but the record shows no change \(held: wanted true, judge says false/);
    expect(report.verified).toBe(false);
  });

  it('a word that is not SUCCESS while the change happened fails too: the word lied', async () => {
    const h = harness(new Map(), [{ word: 'BUSINESS_OUTCOME', change: true }]);
    const report = await go(card(), h, [{ member_number: '400118' }]);
    expect(report.plates[0]).toMatchObject({ status: 'failed', word: 'BUSINESS_OUTCOME', judge: { changed: true, agrees: false } });
    // The plate carries what every receipt carries: how long it took and what the page said.
    expect(report.plates[0]).toMatchObject({ duration_ms: 1234, page_text: 'HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)' });
    expect(report.plates[0]?.why).toContain('the record shows the change happened, but the word says BUSINESS_OUTCOME');
  });

  it('SUCCESS with the change is clean; a refusal with no change is not clean, but the judge agrees', async () => {
    const h = harness(new Map(), [{ word: 'SUCCESS', change: true }, { word: 'BUSINESS_OUTCOME', change: false }]);
    const report = await go(card(), h, [{ member_number: '400118' }, { member_number: '400337' }]);
    expect(report.plates[0]).toMatchObject({ status: 'clean', clean: true, why: '', judge: { before: { held: false }, after: { held: true, member: '400118' }, changed: true, agrees: true } });
    expect(report.plates[1]).toMatchObject({ status: 'failed', judge: { changed: false, agrees: true } });
    expect(report.plates[1]?.why).toContain('the judge agrees nothing changed');
    expect(report).toMatchObject({ k: 1, n: 2, verified: false });
  });

  it('the judge is asked before and after with public inputs only, and what it says passes the masker', async () => {
    const h = harness(new Map(), [{ word: 'SUCCESS', change: true }]);
    const report = await go(card(), h, [{ member_number: '400118', password: SECRET }]);
    expect(h.requests).toEqual([
      { card: 'demo_place_hold', inputs: { member_number: '400118' }, phase: 'before' },
      { card: 'demo_place_hold', inputs: { member_number: '400118' }, phase: 'after' },
    ]);
    expect(JSON.stringify(report)).not.toContain(SECRET);
    expect(report.plates[0]?.judge.after).toMatchObject({ note: 'by [secret:password]' });
  });

  it('needs an expected change, from the card or the option; the option wins', async () => {
    const bare = Capability.parse({ ...minimalCard(), lifecycle: { state: 'draft' } });
    await expect(go(bare, harness(new Map(), []), [{ member_number: '400118' }])).rejects.toMatchObject({ code: 'NO_EXPECTED_CHANGE' });
    const h = harness(new Map(), [{ word: 'SUCCESS', change: true }]);
    const report = await verify(bare, {
      plates: [{ member_number: '400118' }], judge: h.judge, run: h.run, env: {}, change: { before: {}, after: { note: 'nothing like it' } },
      surfaceFactory: () => Promise.reject(new Error('unused')), evidenceRoot: '/tmp/handrail-unused',
    });
    expect(report.plates[0]).toMatchObject({ status: 'failed', judge: { changed: false } });
    await expect(
      verify(bare, { plates: [{ member_number: '1' }], judge: h.judge, run: h.run, env: {}, change: { before: {}, after: { pw: '{{password}}' } }, surfaceFactory: () => Promise.reject(new Error('unused')) }),
    ).rejects.toMatchObject({ code: 'BAD_CHANGE' });
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
