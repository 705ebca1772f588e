// Benchmark: two runners racing on the same idempotency key through the shared PostgreSQL journal, N times
// (HANDRAIL_BENCH_PG_N, default 100). Two separate processes (tests/bench/pg-runner.ts), each with its own Chromium
// and its own connection, are told "go" at the same moment for the same share; the bank is reset and the journal
// emptied between rounds, so every round is a fresh intent. Judged by PLUMBLINE's own press counter: a round with
// two presses is a double. Run alone: npx tsx tests/bench/pg-race.ts [rounds]
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startBank } from '../../demo/plumbline/server.ts';
import { Progress } from '../../runner/progress.ts';
import { NO_POSTGRES, postgresBin, startPostgres } from '../fixtures/postgres.ts';
import { median } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SHARE = '400118-S0005';

export interface PgRaceBench {
  rounds: number;
  presses: number;
  doubles: number;
  /** Rounds nobody pressed in (both refused or failed): the race must still be won by one. */
  unpressed: number;
  /** How often each answer was given, e.g. {"SUCCESS": 100, "BUSY": 97, "SUCCESS/journal": 3}. */
  answers: Record<string, number>;
  roundMedianMs: number;
  wallMs: number;
}

interface Runner {
  child: ChildProcessWithoutNullStreams;
  next(): Promise<{ word: string; code: string; from_journal: boolean; ms: number }>;
}

function runner(env: NodeJS.ProcessEnv): Promise<Runner> {
  const child = spawn(process.execPath, ['--import', 'tsx', resolve(ROOT, 'tests/bench/pg-runner.ts')], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiting: { ok: (l: string) => void; fail: (e: Error) => void }[] = [];
  let err = '';
  let buf = '';
  let gone: Error | null = null;
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  child.stdout.on('data', (b: Buffer) => {
    buf += b.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const w = waiting.shift();
      if (w) w.ok(line);
      else lines.push(line);
    }
  });
  child.once('close', (code) => {
    gone = new Error(`a bench runner exited (${code}): ${err.slice(-600)}`);
    for (const w of waiting.splice(0)) w.fail(gone);
  });
  const line = (): Promise<string> =>
    new Promise((ok, fail) => {
      const l = lines.shift();
      if (l !== undefined) return ok(l);
      if (gone) return fail(gone);
      waiting.push({ ok, fail });
    });
  return line().then((first) => {
    if (first !== 'ready') throw new Error(`a bench runner said ${first}: ${err.slice(-600)}`);
    return { child, next: async () => JSON.parse(await line()) as Awaited<ReturnType<Runner['next']>> };
  });
}

export async function benchPgRace(rounds = 100): Promise<PgRaceBench | { skipped: string }> {
  if (!postgresBin()) return { skipped: NO_POSTGRES };
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password });
  const cluster = await startPostgres();
  const runners: Runner[] = [];
  try {
    const url = await cluster.newDatabase();
    const env = { ...process.env, HANDRAIL_JOURNAL_URL: url, HANDRAIL_SECRET_PASSWORD: password, BASE_URL: bank.url };
    runners.push(...(await Promise.all([runner(env), runner(env)])));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const answers: Record<string, number> = {};
    const times: number[] = [];
    let presses = 0;
    let doubles = 0;
    let unpressed = 0;
    const began = performance.now();
    const bar = new Progress({ total: rounds, label: 'race rounds' });
    try {
      for (let i = 0; i < rounds; i++) {
        bank.store.reset();
        await admin.query('TRUNCATE handrail_journal_records, handrail_journal_keys');
        const t = performance.now();
        for (const r of runners) r.child.stdin.write(`go ${SHARE}\n`);
        const got = await Promise.all(runners.map((r) => r.next()));
        times.push(performance.now() - t);
        for (const g of got) {
          const k = `${g.word}${g.from_journal ? '/journal' : ''}`;
          answers[k] = (answers[k] ?? 0) + 1;
        }
        const p = bank.store.holdFor(SHARE).postPresses;
        presses += p;
        if (p > 1) doubles++;
        if (p === 0) unpressed++;
        bar.tick(`${p} press${p === 1 ? '' : 'es'} · ${got.map((g) => g.word).join(' + ')}`);
      }
    } finally {
      bar.finish();
      await admin.end();
    }
    return { rounds, presses, doubles, unpressed, answers, roundMedianMs: median(times), wallMs: performance.now() - began };
  } finally {
    for (const r of runners) r.child.stdin.end();
    await Promise.all(runners.map((r) => (r.child.exitCode === null ? new Promise((ok) => r.child.once('close', ok)) : Promise.resolve())));
    await cluster.stop();
    await bank.close();
  }
}

export function describePgRace(b: PgRaceBench | { skipped: string }): string {
  if ('skipped' in b) return `pg race: skipped: ${b.skipped}\n`;
  const answers = Object.entries(b.answers)
    .sort()
    .map(([k, n]) => `${k}×${n}`)
    .join(' ');
  return [
    'pg race: two runners (separate processes, one PostgreSQL journal) on one idempotency key, judged by PLUMBLINE\'s press counter',
    '| rounds | presses | doubles | rounds unpressed | answers | round median | wall |',
    '|--------|---------|---------|------------------|---------|--------------|------|',
    `| ${b.rounds} | ${b.presses} | ${b.doubles} | ${b.unpressed} | ${answers} | ${b.roundMedianMs.toFixed(0)} ms | ${(b.wallMs / 1000).toFixed(1)} s |`,
    `pg race: ${b.doubles === 0 && b.unpressed === 0 ? 'PASS' : 'FAIL'} (target: 0 doubles, every round pressed once)`,
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? process.env['HANDRAIL_BENCH_PG_N'] ?? 100);
  process.stdout.write(describePgRace(await benchPgRace(rounds)));
}
