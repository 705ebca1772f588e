// A replay paused at the console ends when told: SIGTERM (a CI job cancelled, a server shutting down), the console's
// abort form and its timeout each end the climb at once — the run's word says it was stopped, nothing is pressed
// after it, and the console's port is closed. The real `handrail replay --console` as a child process against
// PLUMBLINE's `rewrite` drift (the result page after the commit is one the card never saw).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { startBank } from '../../demo/plumbline/server.ts';
import { LOG_FILE } from '../../runner/evidence.ts';
import type { RunResult } from '../../shared/schema/result.ts';
import { handrail } from './support/cli.ts';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;
// Three replays to the commit each, on a machine that may be busy.
test.describe.configure({ timeout: 180_000 });
let scratch: string;
test.beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'handrail-stop-'));
});
test.afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Stopped {
  receipt: RunResult;
  log: string;
  presses: number;
  /** From the moment the test told the console to end (a signal, a form) to its port refusing connections. */
  closedMs: number;
  /** From that moment to the process's exit (the run's failure evidence and the browser's close come after the console's). */
  endedMs: number;
  url: URL;
  exit: { code: number | null; signal: NodeJS.Signals | null };
}

/** Whether the console's port refuses connections; asked without the token, so asking does not keep it alive. */
const closed = async (url: URL): Promise<boolean> => fetch(new URL('/', url)).then(() => false, () => true);

/** One replay of the hold on the rewritten bank, paused at the console; `tell` ends it once the console is up. */
async function pausedThen(share: string, tell: (url: URL, child: ChildProcess) => Promise<void>, extra: string[] = []): Promise<Stopped> {
  const bank = await startBank({ port: 0, operatorPassword: PASSWORD, drift: 'rewrite' });
  let child: ChildProcess | undefined;
  let told = 0;
  let closedAt = 0;
  let url: URL | undefined;
  let failed: unknown;
  try {
    const evidence = join(scratch, `ev-${share}`);
    const ran = await handrail(
      ['replay', 'capabilities/plumbline-place-hold.json', '--base-url', bank.url, '--evidence', evidence, '--referee', 'local', '--console', '--settle-timeout', '30000', ...extra,
        '-i', 'operator_id=OP1001', '-i', `member_number=${share.slice(0, 6)}`, '-i', `share_id=${share}`, '-i', 'reason=LEGAL'],
      { ...process.env, HANDRAIL_HOME: join(scratch, `home-${share}`), HANDRAIL_SECRET_PASSWORD: PASSWORD },
      undefined,
      {
        started: (c) => (child = c),
        onStderr: (chunk) => {
          const m = /open (http:\/\/127\.0\.0\.1:\d+\/\?t=[\w-]+)/.exec(chunk);
          if (!m?.[1] || url || !child) return;
          url = new URL(m[1]);
          const c = child;
          const u = url;
          // The page is up (the person could look): then the test tells the run to end.
          void fetch(u)
            .then(() => {
              told = Date.now();
              return tell(u, c);
            })
            .then(async () => {
              while (!closedAt && Date.now() - told < 30_000) {
                if (await closed(u)) closedAt = Date.now();
                else await new Promise((r) => setTimeout(r, 50));
              }
            })
            .catch((e: unknown) => {
              failed = e;
              c.kill('SIGKILL');
            });
        },
      },
    );
    const ended = Date.now();
    if (failed) throw failed;
    expect(url, `no console URL on stderr:\n${ran.stderr}`).toBeDefined();
    return {
      receipt: JSON.parse(ran.stdout) as RunResult,
      log: await readFile(join(evidence, LOG_FILE), 'utf8'),
      presses: bank.store.holdFor(share).postPresses,
      closedMs: told && closedAt ? closedAt - told : Number.NaN,
      endedMs: told ? ended - told : Number.NaN,
      url: url as URL,
      exit: { code: ran.code, signal: ran.signal },
    };
  } finally {
    await bank.close();
  }
}

test('SIGTERM while a person is asked ends the replay within 2 s: the word says it was stopped, nothing pressed after it, the console closed', async () => {
  const r = await pausedThen('400118-S0001', (_url, child) => Promise.resolve(void child.kill('SIGTERM')), ['--console-timeout', '60000']);
  // The console is gone within 2 s of the signal; the process follows once the evidence is sealed and the browser
  // closed (a few seconds on a loaded machine, against the console's 60 s timeout that held it before).
  expect(r.closedMs).toBeLessThan(2_000);
  expect(r.endedMs).toBeLessThan(10_000);
  expect(r.exit.signal).toBeNull();
  // The commit was pressed before the person was asked; its outcome is still not seen, and the run says why it ended.
  expect(r.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', escalated_to_human: true });
  expect(r.receipt.message).toMatch(/stopped \(SIGTERM\) while a person was asked/);
  expect(r.log).toMatch(/"kind":"person_stopped".*"reason":"SIGTERM"/);
  expect(r.log).toMatch(/"kind":"run_end"/);
  expect(r.presses).toBe(1);
  expect(await closed(r.url)).toBe(true);
});

test('the console\'s abort form ends the replay at once, and so does its timeout', async () => {
  const aborted = await pausedThen('400118-S0005', async (url) => {
    const res = await fetch(new URL('/abort', url), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ t: url.searchParams.get('t') ?? '', name: 'Ada Clerk', reason: 'stop it' }),
    });
    expect(res.status).toBe(200);
  }, ['--console-timeout', '60000']);
  expect(aborted.closedMs).toBeLessThan(2_000);
  expect(aborted.endedMs).toBeLessThan(10_000);
  expect(aborted.receipt).toMatchObject({ word: 'UNSAFE_TO_RETRY', escalated_to_human: true });
  expect(aborted.log).toMatch(/"kind":"person_abort".*"by":"Ada Clerk"/);
  expect(aborted.presses).toBe(1);
  expect(await closed(aborted.url)).toBe(true);

  // Nobody answers: the console closes at its timeout (1.5 s after the page was last asked for) and the run ends.
  const late = await pausedThen('400226-S0002', () => Promise.resolve(), ['--console-timeout', '1500']);
  expect(late.closedMs).toBeLessThan(1_500 + 2_000);
  expect(late.endedMs).toBeLessThan(1_500 + 10_000);
  expect(late.log).toMatch(/"kind":"person_timeout"/);
  expect(late.presses).toBe(1);
  expect(await closed(late.url)).toBe(true);
});
