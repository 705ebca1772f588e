// `npm run reliability`: the "never twice" promise measured with real `handrail replay` and `handrail serve`
// processes against PLUMBLINE, judged by the bank's own press counter, never by the receipts. Bounded: every
// count comes from the environment (defaults fit a laptop in a few minutes). Prints a table; exits 1 on any
// violation. Counts: HANDRAIL_REL_KILLS, HANDRAIL_REL_RACE_ROUNDS, HANDRAIL_REL_RACE_PROCS, HANDRAIL_REL_RESTARTS.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { main as fuzzMain } from './fuzz-cards.ts';
import { Progress } from '../../runner/progress.ts';
import { scan as scanSecrets } from '../tools/secret-scan.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CARD = join(ROOT, 'capabilities/plumbline-place-hold.json');
const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
/** The shares PLUMBLINE starts with no hold on. */
const SHARES = ['400118-S0005', '400118-S0001', '400337-S0001', '400445-S0001'] as const;

const count = (name: string, fallback: number): number => {
  const v = Number(process.env[name] ?? fallback);
  return Number.isInteger(v) && v >= 0 ? v : fallback;
};
const KILLS = count('HANDRAIL_REL_KILLS', 6);
const RACE_ROUNDS = count('HANDRAIL_REL_RACE_ROUNDS', 2);
const RACE_PROCS = Math.max(2, count('HANDRAIL_REL_RACE_PROCS', 4));
const RESTARTS = count('HANDRAIL_REL_RESTARTS', 1);

let bank: Bank;
let scratch: string;
const log = (line: string): boolean => process.stderr.write(`${line}\n`);

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  receipt: RunResult | null;
  ms: number;
}

interface Row {
  section: string;
  trials: number;
  outcome: string;
  maxPresses: number;
  violations: string[];
}
const rows: Row[] = [];

function replayArgs(share: string, opts: { reason?: string; card?: string; url?: string; wait?: number }): string[] {
  return [
    join(ROOT, 'bin/handrail.mjs'), 'replay', opts.card ?? CARD, '--base-url', opts.url ?? bank.url,
    '--evidence', join(scratch, 'runs', `ev-${randomBytes(4).toString('hex')}`),
    '--input', 'operator_id=OP1001', '--input', `member_number=${share.slice(0, 6)}`, '--input', `share_id=${share}`,
    '--input', `reason=${opts.reason ?? 'LEGAL'}`, '--settle-timeout', '8000', '--wait', String(opts.wait ?? 0),
    // Another card file is an edit of the approved one (a narrowed identity): unsigned, so it runs as a draft would.
    ...(opts.card ? ['--allow-unapproved'] : []),
  ];
}

/** One `handrail replay` in its own process group; `killAfterMs` sends SIGKILL to the whole group (Chromium too). */
function replay(home: string, share: string, opts: { reason?: string; card?: string; url?: string; wait?: number; killAfterMs?: number; env?: Record<string, string> } = {}): Promise<Ran> {
  const began = Date.now();
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, replayArgs(share, opts), {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, HANDRAIL_HOME: home, HANDRAIL_SECRET_PASSWORD: PASSWORD, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let errText = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    // Captured for the secret scan at the end (a child's stderr is its progress and any error it printed).
    child.stderr.on('data', (d: Buffer) => (errText += d.toString()));
    const killGroup = (): void => {
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = opts.killAfterMs === undefined ? undefined : setTimeout(killGroup, opts.killAfterMs);
    child.on('error', fail);
    // A failpoint kills the runner alone: its Chromium, orphaned in the group, may still be sending the press. The
    // group goes with it as soon as the runner is seen dead (its pipes may stay open while the orphan holds them), so
    // no browser outlives the run that started it.
    child.on('exit', (_code, signal) => {
      if (signal) killGroup();
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const tag = `replay-${began}-${randomBytes(3).toString('hex')}`;
      const kept = Promise.all([writeFile(join(scratch, 'logs', `${tag}.stdout`), out), writeFile(join(scratch, 'logs', `${tag}.stderr`), errText)]);
      let receipt: RunResult | null = null;
      try {
        receipt = out ? (JSON.parse(out) as RunResult) : null;
      } catch {
        receipt = null;
      }
      const ms = Date.now() - began;
      void kept.catch(() => undefined).then(() => done({ code, signal, receipt, ms }));
    });
  });
}

const presses = (share: string): number => bank.store.holdFor(share).postPresses;
const word = (r: Ran): string => (r.receipt ? `${r.receipt.word}${r.receipt.from_journal ? '(journal)' : ''}` : r.signal ? `killed` : `exit ${r.code}`);
/** The word with the receipt's reason and detail, for a violation line that says what went wrong. */
const why = (r: Ran): string => (r.receipt ? `${word(r)} ${r.receipt.code} at ${r.receipt.at_step ?? '-'}: ${r.receipt.message.slice(0, 300)}` : word(r));
/** Codes a run on a loaded machine can end with before its commit: the page was slow, not the journal wrong. */
const SLOW_MACHINE: ReadonlySet<string> = new Set(['TIMEOUT', 'SCREEN_MISMATCH', 'TARGET_NOT_FOUND', 'SURFACE_UNREACHABLE', 'NAVIGATION_FAILED']);
/** Words after which a run pressed nothing and the harness runs the key again (as an operator would). */
const RETRYABLE_OR_FAILED: ReadonlySet<string> = new Set(['RECOVERABLE', 'BUSY', 'FAILED']);
const home = (): Promise<string> => mkdtemp(join(scratch, 'home-'));
const tally = (words: string[]): string => {
  const m = new Map<string, number>();
  for (const w of words) m.set(w, (m.get(w) ?? 0) + 1);
  return [...m].sort().map(([w, n]) => `${w}×${n}`).join(' ');
};

async function killTrials(): Promise<void> {
  if (KILLS === 0) return;
  // How long one uninterrupted run takes here: the kills land anywhere in [0, 1.2 × that].
  bank.store.reset();
  const probe = await replay(await home(), SHARES[0]);
  const span = Math.max(1000, Math.round(probe.ms * 1.2));
  log(`kill trials: one run takes ${probe.ms}ms; killing at random in [0, ${span}]ms`);
  const violations: string[] = [];
  const ends: string[] = [];
  let maxPresses = 0;
  // The longest section: a bar with counts and ETA on a terminal, one plain line per trial elsewhere (stderr).
  const bar = new Progress({ total: KILLS, label: 'kill trials' });
  for (let i = 0; i < KILLS; i++) {
    bank.store.reset();
    const h = await home();
    const share = SHARES[i % SHARES.length] as string;
    const first = await replay(h, share, { killAfterMs: Math.floor(Math.random() * span) });
    let last = first;
    let reruns = 0;
    // Rerun until a run ends by itself (a BUSY rerun waits out a lease the kill left half-written).
    while ((last.signal || !last.receipt || last.receipt.word === 'BUSY') && reruns < 5) {
      last = await replay(h, share, { wait: 8000 });
      reruns++;
    }
    const p = presses(share);
    maxPresses = Math.max(maxPresses, p);
    const end = first.signal ? `killed→${word(last)}` : `finished ${word(first)}`;
    ends.push(end);
    if (p > 1) violations.push(`trial ${i}: ${p} presses of ${share}`);
    if (!last.receipt || !['SUCCESS', 'UNSAFE_TO_RETRY'].includes(last.receipt.word)) violations.push(`trial ${i}: ended ${word(last)}`);
    if (last.receipt?.word === 'SUCCESS' && p !== 1) violations.push(`trial ${i}: SUCCESS but ${p} presses`);
    bar.tick(`${end} · presses ${p}`);
  }
  bar.finish();
  rows.push({ section: 'kill trials (SIGKILL process group, rerun to the end)', trials: KILLS, outcome: tally(ends), maxPresses, violations });
}

async function races(): Promise<void> {
  const violations: string[] = [];
  const words: string[] = [];
  let maxPresses = 0;
  for (let round = 0; round < RACE_ROUNDS; round++) {
    for (const mixed of [false, true]) {
      bank.store.reset();
      const h = await home();
      const keys = mixed ? SHARES.slice(0, 2) : SHARES.slice(0, 1);
      const all = await Promise.all(Array.from({ length: RACE_PROCS }, (_, i) => replay(h, keys[i % keys.length] as string)));
      for (const r of all) words.push(word(r));
      // A run that ended before its commit (a timeout on a loaded machine) pressed nothing and may simply run again:
      // that is the product's promise too. Rerun such a key alone until it ends, then count: one press per key.
      const settled: Ran[] = [];
      for (const [i, r] of all.entries()) {
        if (r.receipt?.word === 'SUCCESS' || r.receipt?.word === 'BUSY') continue;
        log(`    ended early: ${why(r)}`);
        // Only what a loaded machine does to a page is tolerated; a journal or lease error in a race is a finding.
        if (!r.receipt || !SLOW_MACHINE.has(r.receipt.code)) violations.push(`round ${round}: a process ended ${why(r)}`);
        const share = keys[i % keys.length] as string;
        if (presses(share) > 0) continue;
        let again = await replay(h, share, { wait: 8000 });
        for (let n = 1; n < 3 && again.receipt && RETRYABLE_OR_FAILED.has(again.receipt.word) && presses(share) === 0; n++) again = await replay(h, share, { wait: 8000 });
        settled.push(again);
        words.push(`rerun ${word(again)}`);
      }
      for (const share of keys) {
        const p = presses(share);
        maxPresses = Math.max(maxPresses, p);
        if (p !== 1) violations.push(`round ${round}${mixed ? ' mixed' : ''}: ${share} pressed ${p} times`);
      }
      for (const r of [...all, ...settled]) {
        if (!r.receipt) violations.push(`round ${round}: a process ended with no receipt (${word(r)})`);
        else if (r.receipt.word === 'UNSAFE_TO_RETRY') violations.push(`round ${round}: a race left a commit in doubt: ${why(r)}`);
      }
      log(`  race ${round + 1}/${RACE_ROUNDS}${mixed ? ' (2 keys)' : ' (1 key)'}: ${tally(all.map(word))}`);
    }
  }
  rows.push({ section: `races (${RACE_PROCS} processes at once; 1 key, then 2 keys)`, trials: RACE_ROUNDS * 2, outcome: tally(words), maxPresses, violations });
}

/**
 * The bank's press count for a share once it has not changed for a second and a half; `settled` false when it was
 * still changing after ten seconds (something outside any run is still pressing: a finding, never a baseline).
 */
async function settledPresses(share: string): Promise<{ count: number; settled: boolean }> {
  const until = Date.now() + 10_000;
  let seen = presses(share);
  let since = Date.now();
  while (Date.now() - since < 1500) {
    if (Date.now() >= until) return { count: seen, settled: false };
    await new Promise((r) => setTimeout(r, 100));
    const now = presses(share);
    if (now !== seen) [seen, since] = [now, Date.now()];
  }
  return { count: seen, settled: true };
}

/** Each damage applied to a copy of one real in-doubt journal (a run killed right after pressing Post Hold). */
async function damage(): Promise<void> {
  bank.store.reset();
  const share = SHARES[2];
  const origin = await home();
  const crashed = await replay(origin, share, { env: { HANDRAIL_FAILPOINT: 'post_hold:after_act' } });
  const violations: string[] = crashed.signal === 'SIGKILL' ? [] : [`the crash run ended ${word(crashed)}`];
  // The press the crashed run dispatched may reach the bank after its process is gone (it was in flight, or its
  // orphaned browser sent it): count from when the bank has stopped changing, so only the damaged runs' presses count.
  // Seen in a CI run: the crashed run's own press arrived after `before` was read and was counted as a new one.
  const settled = await settledPresses(share);
  const before = settled.count;
  if (!settled.settled) violations.push(`the bank's presses of ${share} were still changing 10 s after the crashed run`);
  // Killed right after its act, the crashed run pressed at most once (its request left or it did not).
  if (before > 1) violations.push(`the crashed run alone pressed ${share} ${before} times`);
  const name = (await readdir(join(origin, 'journals'))).find((n) => n.endsWith('.jsonl')) ?? '';
  const text = await readFile(join(origin, 'journals', name), 'utf8');
  const lines = text.split('\n');
  const last = lines.length - 2;
  const hurt: [string, () => string | null][] = [
    ['empty', () => ''],
    ['NUL-filled', () => '\u0000'.repeat(text.length)],
    ['truncated mid-line', () => text.slice(0, text.length - 20)],
    ['dispatched line deleted', () => lines.filter((_, i) => i !== last).join('\n')],
    ['line edited', () => lines.map((l, i) => (i === 1 ? l.replace('OP1001', 'OP1002').replace('"stage"', '"commit"') : l)).join('\n')],
    ['lines reordered', () => [lines[0], lines[2], lines[1], ...lines.slice(3)].join('\n')],
    ['wrong version', () => lines.map((l, i) => (i === 0 ? l.replace('"v":2', '"v":9') : l)).join('\n')],
    ['journal deleted, head kept', () => null],
  ];
  const words: string[] = [];
  for (const [what, mutate] of hurt) {
    const h = await home();
    await cp(join(origin, 'journals'), join(h, 'journals'), { recursive: true });
    const next = mutate();
    if (next === null) await rm(join(h, 'journals', name));
    else await writeFile(join(h, 'journals', name), next);
    const r = await replay(h, share);
    words.push(r.receipt?.code ?? word(r));
    if (r.receipt?.code !== 'JOURNAL_DAMAGED' || r.receipt.word !== 'UNSAFE_TO_RETRY') violations.push(`${what}: ${word(r)} ${r.receipt?.code ?? ''}`);
    if (!/line \d+/.test(r.receipt?.message ?? '')) violations.push(`${what}: the message names no line`);
    log(`  damage ${what}: ${r.receipt?.word ?? '?'} ${r.receipt?.code ?? ''}`);
  }
  const after = await settledPresses(share);
  if (!after.settled) violations.push(`the bank's presses of ${share} were still changing 10 s after the last damaged run`);
  const added = after.count - before;
  if (added !== 0) violations.push(`${added} presses after damage`);
  rows.push({ section: 'damage matrix (each on a real in-doubt journal)', trials: hurt.length, outcome: `${tally(words)} · new presses ${added}`, maxPresses: presses(share), violations });
}

async function restarts(): Promise<void> {
  if (RESTARTS === 0) return;
  const violations: string[] = [];
  const words: string[] = [];
  let maxPresses = 0;
  for (let i = 0; i < RESTARTS; i++) {
    bank.store.reset();
    const h = await home();
    const share = SHARES[i % SHARES.length] as string;
    const args = { operator_id: 'OP1001', member_number: share.slice(0, 6), share_id: share, reason: 'LEGAL' };
    for (const phase of ['first', 'after restart']) {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'bin/handrail.mjs'), 'serve', join(ROOT, 'capabilities'), '--evidence-dir', join(scratch, 'runs')],
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? scratch, HANDRAIL_HOME: h, BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PASSWORD },
        // Captured for the secret scan at the end: the server's progress lines and anything it printed on the way down.
        stderr: 'pipe',
        cwd: ROOT,
      });
      let errText = '';
      transport.stderr?.on('data', (d: Buffer) => (errText += d.toString()));
      const client = new Client({ name: 'reliability', version: '0' });
      await client.connect(transport);
      const res = (await client.callTool({ name: 'plumbline_place_hold', arguments: args })) as CallToolResult;
      const r = res.structuredContent as { word?: string; from_journal?: boolean } | undefined;
      words.push(`${r?.word ?? '?'}${r?.from_journal ? '(journal)' : ''}`);
      if (phase === 'after restart' && !(r?.word === 'SUCCESS' && r.from_journal)) violations.push(`restart ${i}: second call ${r?.word ?? '?'} from_journal=${String(r?.from_journal)}`);
      // The server dies hard: SIGKILL, no shutdown, then a new one starts on the same state dir.
      if (transport.pid) process.kill(transport.pid, 'SIGKILL');
      await client.close().catch(() => undefined);
      await writeFile(join(scratch, 'logs', `mcp-${i}-${phase.replace(' ', '-')}.stderr`), errText);
    }
    const p = presses(share);
    maxPresses = Math.max(maxPresses, p);
    if (p !== 1) violations.push(`restart ${i}: ${p} presses`);
  }
  rows.push({ section: 'MCP server SIGKILLed and restarted between identical calls', trials: RESTARTS, outcome: tally(words), maxPresses, violations });
}

async function intentAndBankDown(): Promise<void> {
  const violations: string[] = [];
  bank.store.reset();
  const h = await home();
  const a = await replay(h, SHARES[0]);
  const b = await replay(h, SHARES[1]);
  if (presses(SHARES[0]) !== 1 || presses(SHARES[1]) !== 1 || a.receipt?.key === b.receipt?.key) violations.push('different shares did not make two presses and two keys');
  const other = await replay(h, SHARES[0], { reason: 'OTHER' });
  if (other.receipt?.from_journal || presses(SHARES[0]) !== 2) violations.push(`default identity: another reason ${word(other)}, presses ${presses(SHARES[0])}`);
  const raw = JSON.parse(await readFile(CARD, 'utf8')) as Record<string, unknown>;
  const narrowed = join(scratch, 'by-share.json');
  await writeFile(narrowed, JSON.stringify({ ...raw, identity: ['member_number', 'share_id'] }));
  bank.store.reset();
  const h2 = await home();
  const n1 = await replay(h2, SHARES[2], { card: narrowed });
  const n2 = await replay(h2, SHARES[2], { card: narrowed, reason: 'OTHER' });
  if (!(n2.receipt?.from_journal && presses(SHARES[2]) === 1)) violations.push(`identity member+share: another reason ${word(n2)}, presses ${presses(SHARES[2])}`);
  rows.push({
    section: 'intent (share; reason by default / by member+share)',
    trials: 5,
    outcome: `${word(a)} ${word(b)} · reason default: ${word(other)} · narrowed: ${word(n1)} ${word(n2)}`,
    maxPresses: Math.max(...SHARES.map(presses), 2),
    violations,
  });
  const down = await replay(h2, SHARES[2], { card: narrowed, url: 'http://127.0.0.1:9' });
  const ok = down.receipt?.word === 'SUCCESS' && down.receipt.from_journal === true && down.receipt.run_id === n1.receipt?.run_id;
  rows.push({ section: 'bank down on a committed key', trials: 1, outcome: `${word(down)} in ${down.ms}ms`, maxPresses: presses(SHARES[2]), violations: ok ? [] : [`answered ${word(down)}`] });
}

function table(): string {
  const head = ['section', 'trials', 'outcomes', 'max presses/hold', 'violations'];
  const body = rows.map((r) => [r.section, String(r.trials), r.outcome, String(r.maxPresses), String(r.violations.length)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

async function main(): Promise<number> {
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
  scratch = await mkdtemp(join(tmpdir(), 'handrail-reliability-'));
  await mkdir(join(scratch, 'logs'));
  const began = Date.now();
  try {
    log(`reliability: kills=${KILLS} race rounds=${RACE_ROUNDS}×${RACE_PROCS} restarts=${RESTARTS} (scratch ${scratch})`);
    await damage();
    await intentAndBankDown();
    await races();
    await restarts();
    await killTrials();
  } finally {
    await bank.close();
    // The secret scan: every file the runs wrote (evidence, journals, receipts, captured stdout/stderr), for the
    // password in every spelling the masker knows. One hit is a violation.
    const scanned = await scanSecrets([scratch], [{ name: 'password', value: PASSWORD }]).catch((e: unknown) => ({ files: 0, hits: [{ file: `scan failed: ${(e as Error).message}`, secret: 'password', at: 0 }] }));
    rows.push({
      section: 'secret scan',
      trials: scanned.files,
      outcome: `${scanned.hits.length} hits in ${scanned.files} files`,
      maxPresses: 0,
      violations: scanned.hits.map((h) => `secret "${h.secret}" in ${h.file}`),
    });
    await rm(scratch, { recursive: true, force: true });
  }
  process.stdout.write(`${table()}\n`);
  // Hostile cards (the security issue's proof): every mutation loads or is refused with a typed, path-naming error.
  const fuzzed = fuzzMain([]);
  if (fuzzed !== 0) rows.push({ section: 'fuzzed cards', trials: 1, outcome: 'failures above', maxPresses: 0, violations: ['a fuzzed card crashed, hung or was refused untyped'] });
  const bad = rows.flatMap((r) => r.violations.map((v) => `${r.section}: ${v}`));
  for (const v of bad) log(`VIOLATION ${v}`);
  log(`reliability: ${bad.length === 0 ? 'no violation' : `${bad.length} violations`} in ${Math.round((Date.now() - began) / 1000)}s`);
  return bad.length === 0 ? 0 : 1;
}

process.exitCode = await main();
