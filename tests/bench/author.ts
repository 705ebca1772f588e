// Authoring cost (issue "real web apps"): a scripted model through the real Anthropic adapter and a fake Messages API
// works an app's task out; the book is compiled and the bench reports model calls per compiled step and the size
// of the request at the 20th turn (a cautious model that makes one call a turn, and misses twice, reaches it).
// Tokens are the fake endpoint's count, ≈ request characters / 4: the real tokenizer is not available here.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_PASSWORD, startCaseDesk } from '../../demo/casedesk/server.ts';
import { startBank } from '../../demo/plumbline/server.ts';
import { AnthropicModel } from '../../runner/author/anthropic.ts';
import { JsonlBook, readBook } from '../../runner/author/book.ts';
import { selectorsFor } from '../../runner/author/selectors.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runEvening, type EveningOptions } from '../../shared/author/evening.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { NO_ROW, parseScript, type Script } from '../../shared/author/scripted.ts';
import { compile } from '../../shared/compile/compile.ts';
import type { Postcondition } from '../../shared/schema/capability.ts';
import { startFakeAnthropic } from '../fixtures/fake-anthropic.ts';

export interface AuthorBench {
  app: string;
  evening: 'as scripted' | 'one call a turn';
  requests: number;
  steps: number;
  callsPerStep: number;
  /** Input tokens (the endpoint's count) of each request, in order. */
  inputTokens: number[];
}

export const AUTHOR_TARGETS = { callsPerStep: 1.0, tokensAtTurn20: 2_000 } as const;

/** An app the bench can author on: how to start it, where the task starts, its inputs and its scripted evening. */
export interface AuthorApp {
  name: string;
  script: string;
  start(): Promise<{ entry: string; inputs: EveningOptions['inputs']; close(): Promise<void> }>;
  /** Which presses the owner calls commits. */
  commits: RegExp;
  /** Postconditions a reviewer gives at compile time (a commit that lands where it started), by step id. */
  post?: Record<string, Postcondition[]>;
}

const ROOT = new URL('../../', import.meta.url);

export const PLUMBLINE_APP: AuthorApp = {
  name: 'PLUMBLINE',
  script: new URL('tests/fixtures/author/plumbline-evening.json', ROOT).pathname,
  commits: /F10=Post Hold/,
  async start() {
    const password = `pw-bench-${process.pid}`;
    const bank = await startBank({ port: 0, operatorPassword: password });
    return {
      entry: `${bank.url}/signon`,
      inputs: [
        { name: 'operator_id', value: 'OP1001', secret: false },
        { name: 'password', value: password, secret: true },
        { name: 'member_number', value: '400118', secret: false },
        { name: 'share_id', value: '400118-S0001', secret: false },
        { name: 'reason', value: 'LEGAL', secret: false },
      ],
      close: () => bank.close(),
    };
  },
};

/** CASEDESK (a single-page app, 0.3–1.2 s behind a spinner per API call) on 127.0.0.1, logged into from its entry. */
function casedesk(name: string, path: string, inputs: EveningOptions['inputs'], rest: Pick<AuthorApp, 'script' | 'commits' | 'post'>): AuthorApp {
  return {
    name,
    ...rest,
    async start() {
      const desk = await startCaseDesk({ delayMs: [300, 1200], seed: 5 });
      return {
        entry: `${desk.url}${path}`,
        inputs: [{ name: 'user', value: 'clerk', secret: false }, { name: 'password', value: DEMO_PASSWORD, secret: true }, ...inputs],
        close: () => desk.close(),
      };
    },
  };
}

/** CASEDESK's add-case evening (Enter in "New case" is the commit; the added row is its postcondition). */
export const CASEDESK_ADD_APP = casedesk('CASEDESK add case', '/', [{ name: 'title', value: 'Burst pipe in a top-floor flat', secret: false }], {
  script: new URL('tests/fixtures/author/casedesk-add-case.json', ROOT).pathname,
  commits: /textbox 'New case'/,
  post: { key_new_case: [{ kind: 'text', contains: 'Added case' }, { kind: 'text', contains: '{{input.title}}' }] },
});

/** CASEDESK's rows evening: the open cases of one assignee, declared with read_rows (docs/design/authoring.md, "Authoring rows"). */
export const CASEDESK_ROWS_APP = casedesk('CASEDESK open cases (rows)', '/find', [{ name: 'assignee', value: 'Unassigned', secret: false }], {
  script: new URL('tests/fixtures/author/casedesk-open-cases.json', ROOT).pathname,
  commits: /$^/,
});

export const AUTHOR_APPS: readonly AuthorApp[] = [PLUMBLINE_APP, CASEDESK_ADD_APP, CASEDESK_ROWS_APP];

/**
 * The same evening made by a cautious model: one call a turn, and calls that miss (a row on no menu) — two, or as
 * many as a short evening needs to reach its 20th turn, where the request size is reported.
 */
export function oneCallATurn(script: Script, misses?: number): Script {
  const turns = script.turns.flatMap((t) => t.map((c) => [c]));
  misses ??= Math.max(2, 20 - turns.length);
  // Right after the first screen is named: a miss between an action that moved the screen and the label of where it
  // landed would leave that landing unlabelled for the compiler.
  const at = turns.findIndex((t) => t[0]?.tool === 'assert_screen') + 1;
  // Each miss a row of its own: like calls fold into one counted line (shared/author/conversation.ts), and a bench of
  // one miss repeated would measure that fold, not a long evening of different calls.
  for (let i = 0; i < misses; i++) turns.splice(at + i, 0, [{ tool: 'act', row: NO_ROW - i, verb: 'invoke' }]);
  return { turns };
}

async function evening(app: AuthorApp, script: Script, kind: AuthorBench['evening']): Promise<AuthorBench> {
  const fake = await startFakeAnthropic(script, { apiKey: 'sk-bench' });
  const started = await app.start();
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-author-'));
  const owner: Owner = { ask: (q) => Promise.resolve({ answer: app.commits.test(q.control) ? 'commit' : 'navigate', name: 'Bench Owner' }) };
  const surface = await BrowserSurface.launch();
  const bookPath = join(dir, 'book.jsonl');
  const book = await JsonlBook.create(bookPath);
  try {
    const model = new AnthropicModel({ apiKey: 'sk-bench', baseURL: fake.url, model: 'claude-fake' });
    const r = await runEvening({ surface, model, owner, book, goal: `bench: ${app.name}`, entry: started.entry, inputs: started.inputs, selectorsFor: selectorsFor(surface.page), maxTurns: 40 });
    if (!r.ok) throw new Error(`${app.name} evening ended ${r.code}: ${r.message}`);
    await book.close();
    const read = await readBook(bookPath);
    if (!read.ok) throw new Error(`${app.name} book does not read`);
    const compiled = compile(read.lines, { id: 'bench', ...(app.post ? { post: app.post } : {}) });
    if (!compiled.ok) throw new Error(`${app.name} (${kind}) book does not compile: ${compiled.holes.map((h) => `line ${h.line} ${h.code}: ${h.message}`).join('; ')}`);
    const steps = compiled.card.steps.length;
    const inputTokens = model.sizes.map((s) => s.input_tokens ?? Math.ceil(s.request_chars / 4));
    return { app: app.name, evening: kind, requests: inputTokens.length, steps, callsPerStep: inputTokens.length / steps, inputTokens };
  } finally {
    await book.close().catch(() => undefined);
    await surface.close();
    await started.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchAuthor(apps: readonly AuthorApp[] = AUTHOR_APPS): Promise<AuthorBench[]> {
  const { readFile } = await import('node:fs/promises');
  const out: AuthorBench[] = [];
  for (const app of apps) {
    const script = parseScript(await readFile(app.script, 'utf8'));
    out.push(await evening(app, script, 'as scripted'));
    out.push(await evening(app, oneCallATurn(script), 'one call a turn'));
  }
  return out;
}

export function describeAuthor(b: AuthorBench): string {
  const t20 = b.inputTokens[19];
  const last = b.inputTokens.at(-1) ?? 0;
  const at = t20 !== undefined ? `turn 20: ${t20} input tokens (target ≤ ${AUTHOR_TARGETS.tokensAtTurn20})` : `last turn (${b.requests}): ${last} input tokens`;
  return (
    `author: ${b.app}, ${b.evening}: ${b.requests} model calls for ${b.steps} compiled steps → ${b.callsPerStep.toFixed(2)} per step ` +
    `(target ≤ ${AUTHOR_TARGETS.callsPerStep}); ${at}; first turn ${b.inputTokens[0] ?? 0}\n`
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const b of await benchAuthor()) process.stdout.write(describeAuthor(b));
}
