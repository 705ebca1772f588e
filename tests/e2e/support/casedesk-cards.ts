// Authoring and replaying a CASEDESK card the way its spec files do: one evening scripted through the real Anthropic
// adapter against the fake Messages API and the real browser surface, its book compiled; an approved (or draft)
// card replayed with no model (the desk itself and its judge are support/desk.ts).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from '@playwright/test';
import { DEMO_PASSWORD, type Desk } from '../../../demo/casedesk/server.ts';
import { AnthropicModel } from '../../../runner/author/anthropic.ts';
import { BrowserSurface } from '../../../runner/browser/surface.ts';
import { runCapability } from '../../../runner/run.ts';
import type { EveningInput, Owner } from '../../../shared/author/ports.ts';
import { parseScript } from '../../../shared/author/scripted.ts';
import type { Capability, Postcondition } from '../../../shared/schema/capability.ts';
import { loadCapability } from '../../../shared/schema/load.ts';
import { startFakeAnthropic } from '../../fixtures/fake-anthropic.ts';
import { compiled, eveningInBrowser } from './evening.ts';

const API_KEY = 'sk-fake-casedesk';
const here = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));

/** A card in capabilities/ (`casedesk-<name>.json`), loaded as replay loads it. */
export async function storedCard(name: string): Promise<Capability> {
  const loaded = loadCapability(await readFile(here(`../../../capabilities/casedesk-${name}.json`), 'utf8'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return loaded.value;
}

/** A card as the compiler makes it: what a reviewer adds (the judge's expected change) and the lifecycle left out. */
export function asCompiled(c: Capability): Omit<Capability, 'lifecycle' | 'judge'> {
  const { lifecycle: _l, judge: _j, ...rest } = c;
  return rest;
}

export interface Evening {
  desk: Desk;
  /** Where the book is written. */
  dir: string;
  /** The script is tests/fixtures/author/casedesk-<name>.json. */
  name: string;
  goal: string;
  inputs: EveningInput[];
  /** The owner calls the control whose menu row contains this a commit; every other question is a navigation. */
  commitOn: string;
  post: Record<string, Postcondition[]>;
  /** Commit steps the reviewer says choose no record (`handrail compile --no-record`): add's Enter. */
  noRecord?: string[];
}

/** One evening through the real adapter; returns the compiled card and the controls the owner was asked about. */
export async function authorEvening(e: Evening): Promise<{ card: Capability; asked: string[]; book: string }> {
  const fake = await startFakeAnthropic(parseScript(await readFile(here(`../../fixtures/author/casedesk-${e.name}.json`), 'utf8')), { apiKey: API_KEY });
  const bookPath = join(e.dir, `${e.name}.jsonl`);
  const asked: string[] = [];
  const owner: Owner = {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control.includes(e.commitOn) ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
  let lines;
  try {
    const run = await eveningInBrowser(bookPath, {
      model: new AnthropicModel({ apiKey: API_KEY, baseURL: fake.url, model: 'claude-fake' }),
      owner,
      goal: e.goal,
      entry: `${e.desk.url}/`,
      inputs: [{ name: 'user', value: 'clerk', secret: false }, { name: 'password', value: DEMO_PASSWORD, secret: true }, ...e.inputs],
    });
    expect(run.evening, JSON.stringify(run.evening)).toMatchObject({ ok: true });
    lines = run.lines;
  } finally {
    await fake.close();
  }
  expect(fake.problems).toEqual([]);
  expect(fake.bodies.some((b) => b.includes(DEMO_PASSWORD))).toBe(false);
  return { card: compiled(lines, { id: `casedesk_${e.name.replaceAll('-', '_')}`, post: e.post, noRecord: e.noRecord ?? [] }), asked, book: bookPath };
}

/** Replays a card with no model against the desk, as `handrail replay` does (a draft as `--allow-unapproved`). */
export async function replayCard(desk: Desk, c: Capability, inputs: Record<string, string>, evidenceDir: string, approved = true) {
  return await runCapability({
    card: c,
    ...(approved ? { requireApproved: true } : { allowUnapproved: true }),
    inputs: { user: 'clerk', password: DEMO_PASSWORD, ...inputs },
    env: { BASE_URL: desk.url },
    surface: () => BrowserSurface.launch(),
    evidenceDir,
  });
}
