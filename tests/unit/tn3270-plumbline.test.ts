// The 3270 card on PLUMBLINE's green screen, as an agent calls it: in the web card's words (a share id, a reason by name), it selects the named share's row and types the reason's code, posts a hold the judge confirms, ends without a press for a share the screen does not list or a reason it does not know, an already-held share is a business outcome, a crash after F10 is never pressed twice, a scripted authoring evening compiles to a card that replays, and every screen reads the same as s3270 shows it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { readCard } from '../../runner/cli/replay.ts';
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

async function cardAt(path: string) {
  const loaded = await readCard(path);
  if (!loaded.ok) throw new Error(loaded.message);
  return loaded.card;
}

async function replay(member: string, share: string, reason = 'LEGAL', env: Record<string, string> = {}) {
  const evidence = await mkdtemp(join(scratch, 'ev-'));
  const ran = await handrail(
    [
      'replay', CARD, '--base-url', bank.terminalUrl ?? '', '--evidence', evidence,
      '--input', 'operator_id=OP1001', '--input', `member_number=${member}`,
      '--input', `share_id=${share}`, '--input', `reason=${reason}`, '--settle-timeout', '5000',
    ],
    { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...env },
  );
  return { ...ran, evidence, receipt: (ran.stdout ? JSON.parse(ran.stdout) : {}) as RunResult };
}

describe('the approved 3270 card', () => {
  it('takes the web card\'s inputs: a share id and a reason by name, no line number and no code', async () => {
    const green = await cardAt(CARD);
    const web = await cardAt('capabilities/plumbline-place-hold.json');
    expect(Object.keys(green?.inputs ?? {})).toEqual(Object.keys(web?.inputs ?? {}));
    expect(green?.inputs['reason']?.values).toEqual(web?.inputs['reason']?.values);
    const post = green?.steps.find((st) => st.effect.kind === 'commit');
    expect(post?.pre).toEqual(expect.arrayContaining([{ kind: 'text', contains: '{{input.share_id}}' }]));
  });

  it('replays SUCCESS with the confirmation the judge holds, text evidence only, and no secret anywhere', async () => {
    const r = await replay('400118', '400118-S0005');
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

  it('given 400118-S0001, it selects that share\'s row (the first line, not a line the caller passed) and holds only it', async () => {
    const r = await replay('400118', '400118-S0001', 'GARNISHMENT');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'SUCCESS', screen: 'hold_result' });
    // GARNISHMENT is typed as the host's code 3: the judge reads the reason the store kept.
    expect(judge('400118-S0001')).toMatchObject({ held: true, reason: 'GARNISHMENT', postPresses: 1 });
    expect(judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('a share the member screen does not list ends FAILED naming that share, and the bank counts no press', async () => {
    const r = await replay('400118', '400226-S0002');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'select_share', retryable: false });
    expect(r.receipt.message).toContain('row SHARE ID "400226-S0002"');
    expect(r.code).toBe(EXIT_CODE.FAILED);
    expect(r.stderr).not.toContain('invoke (commit)');
    expect(judge('400226-S0002').postPresses).toBe(0);
    expect(judge('400118-S0001')).toMatchObject({ held: false, postPresses: 0 });
    expect(judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('a reason the green screen does not take is refused before anything is opened, naming the input and its words', async () => {
    for (const reason of ['COURT', '1']) {
      const r = await replay('400118', '400118-S0005', reason);
      expect(r.receipt, r.stderr).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
      expect(r.receipt.message).toContain('input "reason" expected one of LEGAL, FRAUD_REVIEW, GARNISHMENT, DECEASED, OTHER');
    }
    expect(judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('the commit still proves its share: a screen showing another share ends FAILED WRONG_RECORD with nothing pressed', async () => {
    // A copy whose SEL target is pinned to the member's other share, so the review screen shows a share the caller did not name.
    const card = structuredClone(await cardAt(CARD));
    const sel = card.targets['share_sel_field'];
    if (!sel) throw new Error('the card has no share_sel_field');
    sel.scope = [{ role: 'row', name: '400118-S0005', column: 'SHARE ID' }];
    const r = await runCapability({
      card,
      inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400118', share_id: '400118-S0001', reason: 'LEGAL' },
      env: { BASE_URL: bank.terminalUrl, HANDRAIL_HOME: home },
      allowUnapproved: true,
      evidenceDir: join(scratch, 'ev-wrong'),
    });
    expect(r, r.message).toMatchObject({ word: 'FAILED', code: 'WRONG_RECORD', at_step: 'post_hold' });
    expect(judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
    expect(judge('400118-S0001')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('a share already held ends BUSINESS_OUTCOME ALREADY_PROCESSED, and the hold is not changed', async () => {
    const before = judge('400226-S0002');
    expect(before).toMatchObject({ held: true, reason: 'LEGAL' });
    const r = await replay('400226', '400226-S0002');
    expect(r.receipt, r.stderr).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'ALREADY_PROCESSED', screen: 'hold_refused' });
    expect(judge('400226-S0002')).toMatchObject({ held: true, reason: 'LEGAL', confirmation: before.confirmation });
  });

  it('killed after F10 showed its result, the next run refuses to press it again: one press, in doubt', async () => {
    const crashed = await replay('400337', '400337-S0001', 'LEGAL', { HANDRAIL_FAILPOINT: 'post_hold:after_settle' });
    expect(crashed.signal ?? crashed.code).toBe('SIGKILL');
    expect(judge('400337-S0001').postPresses).toBe(1);
    const rerun = await replay('400337', '400337-S0001');
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
      inputs: { operator_id: 'OP1001', password: PASSWORD, member_number: '400445', share_id: '400445-S0001', reason_code: '3' },
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
        '--input', 'operator_id=OP1001', '--secret', 'password', '--input', 'member_number=400118', '--input', 'share_id=400118-S0001',
        '--input', 'reason_code=2', '--model', `scripted:${EVENING_SCRIPT}`, '--owner', 'Dana Reviewer', '--owner-answers', answers, '-o', trace,
      ],
      env,
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ ok: true, finished: 'hold_result' });
    expect(judge('400118-S0001')).toMatchObject({ held: true, reason: 'FRAUD_REVIEW', postPresses: 1 });
    expect(await readFile(trace, 'utf8')).not.toContain(PASSWORD);
    const out = join(dir, 'card.json');
    // The share was chosen by its row, whose key is the share_id input: the compiler proves it on the review screen itself.
    const compiled = await handrail(['compile', trace, '-o', out, '--id', 'green_hold'], env);
    expect(compiled.code, compiled.stderr).toBe(0);
    const card = JSON.parse(await readFile(out, 'utf8')) as { surface: string; steps: { id: string; effect: { kind: string }; pre?: unknown }[]; targets: Record<string, { scope: unknown }> };
    expect(card.surface).toBe('tn3270');
    expect(card.steps.filter((st) => st.effect.kind === 'commit').map((st) => [st.id, st.pre])).toEqual([['post_hold', [{ kind: 'text', contains: '{{input.share_id}}' }]]]);
    expect(Object.values(card.targets).map((t) => t.scope)).toContainEqual([{ role: 'row', name: '{{input.share_id}}', column: 'SHARE ID' }]);
  });
});

describe('the surface reads what s3270 shows', () => {
  it('every screen of the task: the observed text equals s3270\'s Ascii()', async () => {
    const s3270 = new S3270();
    const surface = new TerminalSurface();
    const shown = (lines: string[]) => lines.map((l) => l.trimEnd()).join('\n').trimEnd();
    const settle = (): Promise<Observation> => settled(surface);
    const control = (o: Observation, name: string, row?: string) => {
      const c = o.parts[0]?.controls.find((x) => x.name === name && (row === undefined || x.scope.some((l) => l.role === 'row' && l.name === row)));
      if (!c) throw new Error(`no ${name}${row ? ` in row ${row}` : ''} on ${o.parts[0]?.text.split('\n')[0] ?? ''}`);
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
      await surface.act(control(o, 'SEL', '400118-S0005'), { verb: 'set_value', value: 'S' });
      await surface.act(control(o, 'ENTER=Select'), { verb: 'invoke' });
      await s3270.do('Tab');
      await s3270.do('String("S")');
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
      await surface.act(control(o, 'SEL', '400118-S0005'), { verb: 'set_value', value: 'S' });
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
