// The 3270 card on PLUMBLINE's green screen, as an operator runs it: replay posts a hold the judge confirms, an already-held share is a business outcome, a crash after F10 is never pressed twice, a scripted authoring evening compiles to a card that replays, and every screen reads the same as s3270 shows it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { runCapability } from '../../runner/run.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { TerminalSurface } from '../../terminal-agent/surface.ts';
import { handrail } from '../e2e/support/cli.ts';
import { S3270 } from '../fixtures/s3270.ts';
import { settled } from '../fixtures/tn3270-host.ts';
import { EVENING_SCRIPT, terminalEvening } from '../fixtures/tn3270-evening.ts';

const CARD = 'capabilities/plumbline-3270-place-hold.json';
// The sign-on field holds 12 characters.
const PASSWORD = `pw-${randomBytes(4).toString('hex')}`;
let bank: Bank;
let scratch: string;
let home: string;

beforeAll(async () => {
  bank = await startBank({ port: 0, terminal: true, operatorPassword: PASSWORD });
  scratch = await mkdtemp(join(tmpdir(), 'handrail-3270-'));
});
afterAll(async () => {
  await bank?.close();
  await rm(scratch, { recursive: true, force: true });
});
beforeEach(async () => {
  bank.store.reset();
  home = await mkdtemp(join(scratch, 'home-'));
});

const judge = (share: string) => bank.store.holdFor(share);

async function replay(member: string, line: string, share: string, env: Record<string, string> = {}) {
  const evidence = await mkdtemp(join(scratch, 'ev-'));
  const ran = await handrail(
    [
      'replay', CARD, '--base-url', bank.terminalUrl ?? '', '--evidence', evidence,
      '--input', 'operator_id=OP1001', '--input', `member_number=${member}`, '--input', `share_line=${line}`,
      '--input', `share_id=${share}`, '--input', 'reason_code=1', '--settle-timeout', '5000',
    ],
    { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env },
  );
  return { ...ran, evidence, receipt: (ran.stdout ? JSON.parse(ran.stdout) : {}) as RunResult };
}

describe('the approved 3270 card', () => {
  it('replays SUCCESS with the confirmation the judge holds, text evidence only, and no secret anywhere', async () => {
    const r = await replay('400118', '2', '400118-S0005');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'SUCCESS', llm_calls: 0, steps_done: 11, screen: 'hold_result' });
    const held = judge('400118-S0005');
    expect(held).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 1 });
    expect(r.receipt.outputs['confirmation']).toBe(held.confirmation);
    expect(r.stderr).toContain('invoke (commit)');
    const files = await readdir(r.evidence, { recursive: true });
    expect(files.filter((f) => f.endsWith('.png'))).toEqual([]);
    const log = await readFile(join(r.evidence, 'evidence.jsonl'), 'utf8');
    expect(log).toContain('"label":"hold_result"');
    for (const text of [log, r.stdout, r.stderr]) expect(text).not.toContain(PASSWORD);
    const verified = await handrail(['evidence', 'verify', r.evidence], { ...process.env, HANDRAIL_HOME: home });
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it('the line of 400118-S0005 given while naming 400118-S0001: FAILED WRONG_RECORD, and the bank counts no press on either share', async () => {
    const r = await replay('400118', '2', '400118-S0001');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'FAILED', code: 'WRONG_RECORD', at_step: 'post_hold', retryable: false });
    expect(r.code).toBe(EXIT_CODE.FAILED);
    expect(judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
    expect(judge('400118-S0001')).toMatchObject({ held: false, postPresses: 0 });
    expect(r.stderr).not.toContain('invoke (commit)');
  });

  it('a share already held ends BUSINESS_OUTCOME ALREADY_PROCESSED, and the hold is not changed', async () => {
    const before = judge('400226-S0002');
    expect(before).toMatchObject({ held: true, reason: 'LEGAL' });
    const r = await replay('400226', '1', '400226-S0002');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', screen: 'hold_refused' });
    expect(judge('400226-S0002')).toMatchObject({ held: true, reason: 'LEGAL', confirmation: before.confirmation });
  });

  it('killed after F10 showed its result, the next run refuses to press it again: one press, in doubt', async () => {
    const crashed = await replay('400337', '1', '400337-S0001', { HANDRAIL_FAILPOINT: 'post_hold:after_settle' });
    expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
    expect(judge('400337-S0001').postPresses).toBe(1);
    const rerun = await replay('400337', '1', '400337-S0001');
    expect(rerun.code).toBe(EXIT_CODE.UNSAFE_TO_RETRY);
    expect(rerun.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'JOURNAL_IN_DOUBT', retryable: false });
    expect(judge('400337-S0001').postPresses).toBe(1);
  });

  it('handrail observe prints the green screen\'s menu and its text', async () => {
    const menu = await handrail(['observe', bank.terminalUrl ?? ''], { ...process.env, HANDRAIL_HOME: home });
    expect(menu.code, menu.stderr).toBe(0);
    expect(menu.stdout).toContain("set_value textbox 'OPERATOR ID'");
    expect(menu.stdout).toContain("invoke button 'ENTER=Sign On'");
    const text = await handrail(['observe', bank.terminalUrl ?? '', '--text'], { ...process.env, HANDRAIL_HOME: home });
    expect(text.stdout).toContain('PLUMBLINE FEDERAL CREDIT UNION - OPERATOR SIGN ON');
    const bad = await handrail(['observe', 'tn3270://127.0.0.1'], { ...process.env, HANDRAIL_HOME: home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('tn3270://host:port');
  });
});

describe('npm run demo -- --terminal', () => {
  it('replays the approved 3270 card on its own green screen and prints the receipt and the judge', async () => {
    const cwd = await mkdtemp(join(scratch, 'demo-'));
    const env: NodeJS.ProcessEnv = { ...process.env, HANDRAIL_HOME: home };
    delete env['PLUMBLINE_PASSWORD'];
    const ran = await handrail(['demo', '--terminal'], env, cwd);
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ word: 'SUCCESS', card: 'plumbline_3270_place_hold', outputs: { confirmation: expect.stringMatching(/^HX-\d{6}$/) as string } });
    expect(ran.stderr).toMatch(/tn3270:\/\/127\.0\.0\.1:\d+ \(green screen\)/);
    expect(ran.stderr).toContain('approved by Riley Approver, content hash matches');
    expect(ran.stderr).toMatch(/judge \(asks the record store, not the screen\): held=true confirmation=HX-\d{6} postPresses=1/);
  });
});

describe('authoring on the terminal', () => {
  it('a scripted evening through the Anthropic adapter compiles to a card that replays with no model', async () => {
    const { evening, card, asked, fake } = await terminalEvening(bank.terminalUrl ?? '', PASSWORD, join(scratch, 'trace.jsonl'));
    expect(evening).toMatchObject({ ok: true, finished: 'hold_result' });
    expect(fake.problems).toEqual([]);
    expect(asked).toContain("button 'F10=Post Hold'");
    expect(fake.bodies.some((b) => b.includes(PASSWORD))).toBe(false);
    expect(card.surface).toBe('tn3270');
    expect(card.entry).toBe('{{env.BASE_URL}}');
    expect(card.steps.find((s) => s.effect.kind === 'commit')?.target).toBe('post_hold_button');
    expect(judge('400118-S0001')).toMatchObject({ held: true, postPresses: 1 });
    const r = await runCapability({
      card,
      inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400445', share_line: '1', reason_code: '3' },
      env: { BASE_URL: bank.terminalUrl },
      allowUnapproved: true,
      evidenceDir: join(scratch, 'ev-authored'),
    });
    expect(r, r.message).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
    expect(judge('400445-S0001')).toMatchObject({ held: true, reason: 'GARNISHMENT', postPresses: 1 });
  });
});

describe('handrail author on a tn3270:// entry', () => {
  it('picks the terminal from the entry, works the task out with the owner\'s answers, and compiles to a tn3270 card', async () => {
    const dir = await mkdtemp(join(scratch, 'author-'));
    const answers = join(dir, 'answers.txt');
    await writeFile(answers, 'n\nn\nn\nn\nc\n');
    const env = { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD };
    const trace = join(dir, 'trace.jsonl');
    const ran = await handrail(
      [
        'author', '--url', bank.terminalUrl ?? '', '--goal', 'Place a hold on one share on the green screen',
        '--input', 'operator_id=OP1001', '--secret', 'password', '--input', 'member_number=400337', '--input', 'share_line=1',
        '--input', 'reason_code=2', '--model', `scripted:${EVENING_SCRIPT}`, '--owner', 'Dana Reviewer', '--owner-answers', answers, '-o', trace,
      ],
      env,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true, finished: 'hold_result' });
    expect(judge('400337-S0001')).toMatchObject({ held: true, reason: 'FRAUD_REVIEW', postPresses: 1 });
    expect(await readFile(trace, 'utf8')).not.toContain(PASSWORD);
    const out = join(dir, 'card.json');
    const refused = await handrail(['compile', trace, '-o', out, '--id', 'green_hold'], env);
    // The share was chosen by its line number, which names no record: the compiler asks what the screen shows of it.
    expect(refused.stderr).toMatch(/NO_RECORD_IDENTITY: commit step "post_hold"/);
    const compiled = await handrail(['compile', trace, '-o', out, '--id', 'green_hold', '--pre', 'post_hold=text:{{input.member_number}}'], env);
    expect(compiled.code, compiled.stderr).toBe(0);
    const card = JSON.parse(await readFile(out, 'utf8')) as { surface: string; steps: { id: string; effect: { kind: string } }[] };
    expect(card.surface).toBe('tn3270');
    expect(card.steps.filter((st) => st.effect.kind === 'commit').map((st) => st.id)).toEqual(['post_hold']);
  });
});

describe('the surface reads what s3270 shows', () => {
  it('every screen of the task: the observed text equals s3270\'s Ascii()', async () => {
    const s3270 = new S3270();
    const surface = new TerminalSurface();
    const shown = (lines: string[]) => lines.map((l) => l.trimEnd()).join('\n').trimEnd();
    const settle = (): Promise<Observation> => settled(surface);
    const control = (o: Observation, name: string) => {
      const c = o.parts[0]?.controls.find((x) => x.name === name);
      if (!c) throw new Error(`no ${name} on ${o.parts[0]?.text.split('\n')[0] ?? ''}`);
      return c.ref;
    };
    const compared: string[] = [];
    const same = async () => {
      const o = await settle();
      const theirs = shown(await s3270.screen());
      expect(o.parts[0]?.text).toBe(theirs);
      compared.push(theirs.split('\n')[0]?.trim().split(/\s+/)[0] ?? '');
      return o;
    };
    try {
      await s3270.do(`Connect(${(bank.terminalUrl ?? '').replace('tn3270://', '')})`);
      await s3270.do('Wait(10,InputField)');
      await surface.open(bank.terminalUrl ?? '');
      let o = await same();
      await surface.act(control(o, 'OPERATOR ID'), { verb: 'set_value', value: 'OP1001' });
      await surface.act(control(o, 'PASSWORD'), { verb: 'set_value', value: PASSWORD, secret: true });
      await s3270.do('String("OP1001")');
      await s3270.do('Tab');
      await s3270.do(`String("${PASSWORD}")`);
      o = await same(); // typed, the password not shown by either
      await surface.act(control(o, 'ENTER=Sign On'), { verb: 'invoke' });
      await s3270.do('Enter');
      o = await same();
      await surface.act(control(o, 'MEMBER NUMBER'), { verb: 'set_value', value: '400118' });
      await surface.act(control(o, 'F5=Search'), { verb: 'invoke' });
      await s3270.do('String("400118")');
      await s3270.do('PF(5)');
      o = await same();
      await surface.act(control(o, 'SELECT SHARE'), { verb: 'set_value', value: '2' });
      await surface.act(control(o, 'ENTER=Select'), { verb: 'invoke' });
      await s3270.do('String("2")');
      await s3270.do('Enter');
      o = await same();
      await surface.act(control(o, 'REASON CODE'), { verb: 'set_value', value: '1' });
      await surface.act(control(o, 'F8=Review'), { verb: 'invoke' });
      await s3270.do('String("1")');
      await s3270.do('PF(8)');
      o = await same();
      // The surface posts; s3270 then posts the same share and sees it already held: both result screens compared.
      await surface.act(control(o, 'F10=Post Hold'), { verb: 'invoke' });
      const posted = await settle();
      expect(posted.parts[0]?.text).toContain('HOLD POSTED');
      await s3270.do('PF(10)');
      const refused = shown(await s3270.screen());
      expect(refused).toContain('ALREADY HELD');
      await surface.act(control(posted, 'F3=Return'), { verb: 'invoke' });
      o = await settle();
      await surface.act(control(o, 'SELECT SHARE'), { verb: 'set_value', value: '2' });
      await surface.act(control(o, 'ENTER=Select'), { verb: 'invoke' });
      o = await settle();
      await surface.act(control(o, 'REASON CODE'), { verb: 'set_value', value: '1' });
      await surface.act(control(o, 'F8=Review'), { verb: 'invoke' });
      o = await settle();
      await surface.act(control(o, 'F10=Post Hold'), { verb: 'invoke' });
      expect((await settle()).parts[0]?.text).toBe(refused);
      expect(compared).toEqual(['SIGNON', 'SIGNON', 'MBRINQ', 'MBRDTL', 'HLDENT', 'HLDREV']);
    } finally {
      await surface.close();
      await s3270.quit();
    }
  });
});
