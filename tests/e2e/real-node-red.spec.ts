// Node-RED as it ships (npm `node-red`, a jQuery editor nobody here wrote, tests/fixtures/node-red/): a scripted evening
// signs in, finds a node by name in the editor's explorer, disables it and presses Deploy; the card compiles, verifies
// 3 of 3 with Node-RED's own admin API as the judge (GET /flows), and replays SUCCESS for another node. A read-only
// user's Deploy, refused in the editor's notification, is never a SUCCESS: in doubt, or the card's business outcome
// once the reviewer declares the refusal's words.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser } from '@playwright/test';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import type { Judge } from '../../runner/judge.ts';
import { runCapability } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import type { Owner } from '../../shared/author/ports.ts';
import { ScriptedModel } from '../../shared/author/scripted.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { startNodeRed, type FlowNode, type NodeRed, type NodeRedUser } from '../fixtures/node-red/server.ts';
import { compiled, eveningInBrowser } from './support/evening.ts';

const EDITOR: NodeRedUser = { username: 'editor', password: `ed-${Math.random().toString(36).slice(2, 10)}`, permissions: '*' };
const VIEWER: NodeRedUser = { username: 'viewer', password: `vw-${Math.random().toString(36).slice(2, 10)}`, permissions: '*.read' };

/** One flow, "Orders", of inject nodes that each poll something: each test's record is one of them, by name. */
const POLLS = ['Poll orders', 'Poll refunds', 'Poll returns', 'Poll invoices', 'Poll payments', 'Poll shipments'];
const FLOWS: FlowNode[] = [
  { id: 'f1', type: 'tab', label: 'Orders' },
  ...POLLS.map((name, i) => ({
    id: `n${i + 1}`,
    type: 'inject',
    z: 'f1',
    name,
    props: [{ p: 'payload' }],
    repeat: '',
    crontab: '',
    once: false,
    onceDelay: 0.1,
    topic: '',
    payload: '',
    payloadType: 'date',
    x: 160,
    y: 60 + 60 * i,
    wires: [[]],
  })),
];

let nr: NodeRed;
let dir: string;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  nr = await startNodeRed({ flows: FLOWS, users: [EDITOR, VIEWER] });
  dir = await mkdtemp(join(tmpdir(), 'handrail-node-red-'));
});
test.afterAll(async () => {
  await nr?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Whether the deployed node called `name` is disabled, as the admin API says. */
async function disabled(name: string): Promise<boolean | undefined> {
  const node = (await nr.flows(EDITOR)).find((n) => n.name === name);
  return node ? node.d === true : undefined;
}

/** The judge: Node-RED's admin API, GET /flows, asked about the plate's node — never the editor's screen. */
const judge: Judge = async (req) => {
  const name = req.inputs['node'] ?? '';
  const now = await disabled(name);
  return now === undefined ? { ok: false, detail: `GET /flows has no node named "${name}"` } : { ok: true, state: { disabled: now } };
};

/** Only Deploy commits: the sign-in's POST /auth/token only moves on. */
const owner: Owner = {
  ask(q) {
    return Promise.resolve({ answer: q.control === "link 'Deploy'" ? 'commit' : 'navigate', name: 'Dana Reviewer' });
  },
};

const EVENING = {
  turns: [
    [
      { tool: 'assert_screen', label: 'sign_in', title: 'Node-RED sign in' },
      { tool: 'act', match: "textbox 'Username:'", verb: 'set_value', value: '{{input.user}}' },
      { tool: 'act', match: "textbox 'Password:'", verb: 'set_value', value: '{{input.password}}' },
      { tool: 'act', match: "button 'Login'", verb: 'invoke' },
    ],
    // The editor filtered, with a node disabled, and deployed is one screen: each differs from the last by a row or
    // a notification, well within the 0.85 of a similar screen.
    [
      { tool: 'assert_screen', label: 'editor', title: 'Node-RED editor' },
      { tool: 'act', match: "textbox 'Search flows'", verb: 'set_value', value: '{{input.node}}' },
    ],
    [{ tool: 'act', match: "button 'Disable' in row 'Poll orders'", verb: 'invoke' }],
    [{ tool: 'act', match: "link 'Deploy'", verb: 'invoke' }],
    [{ tool: 'finish', label: 'editor' }],
  ],
} as const;

let card: Capability;
let runs = 0;
const replay = (c: Capability, user: NodeRedUser, node: string, browser: Browser) =>
  runCapability({
    card: c,
    allowUnapproved: true,
    inputs: { user: user.username, password: user.password, node },
    env: { BASE_URL: nr.url },
    surface: () => BrowserSurface.launch({ browser }),
    evidenceDir: join(dir, `evidence-${++runs}`),
  });

test.describe.configure({ mode: 'serial' });

// Replay types the search and looks for the node's row before Node-RED's 500 ms debounce has filtered the explorer
// (the filtered editor is the same screen, so settling has nothing to wait for): the engine waits for a target not
// there yet, bounded (docs/design/replay.md, "A target not there yet"). Before that wait every plate was TARGET_NOT_FOUND.

test('a scripted evening disables a node and deploys; the card verifies 3 of 3 by GET /flows and replays SUCCESS for another node', async ({ browser }) => {
  test.setTimeout(420_000);
  const { evening, lines } = await eveningInBrowser(
    join(dir, 'disable.jsonl'),
    {
      model: new ScriptedModel(structuredClone(EVENING) as never),
      owner,
      goal: 'Disable one node of the Orders flow by name and deploy',
      entry: `${nr.url}/`,
      // The editor's comms socket carries its subscriptions and heartbeats, never a change to the flows (a deploy is
      // POST /flows): the reviewer declares it no write, as `handrail author --ignore-write 'SEND /comms'` does.
      writes: { ignore: ['SEND /comms'] },
      inputs: [
        { name: 'user', value: EDITOR.username, secret: false },
        { name: 'password', value: EDITOR.password, secret: true },
        { name: 'node', value: 'Poll orders', secret: false },
      ],
    },
    () => BrowserSurface.launch({ browser }),
  );
  const refusals = lines.filter((l) => l.kind === 'refusal').map((l) => JSON.stringify(l).slice(0, 400));
  expect(evening, `${JSON.stringify(evening)}\n${refusals.join('\n')}`).toMatchObject({ ok: true, finished: 'editor' });
  expect(await disabled('Poll orders')).toBe(true);
  // Deploy leaves the editor as it was but for Node-RED's notification, which is no live region (a plain <div>): the
  // reviewer names its words as the proof on the screen (`handrail compile --post 'open_deploy=text:…'`).
  card = compiled(lines, { id: 'node_red_disable_node', post: { open_deploy: [{ kind: 'text', contains: 'Successfully deployed' }] } });
  const deploy = card.steps.find((s) => s.effect.kind === 'commit');
  expect(deploy?.effect.confirmed_by).toEqual({ owner: 'Dana Reviewer' });
  // The node is chosen by the input: its row in the explorer is the blank, not "Poll orders".
  expect(JSON.stringify(card.targets)).not.toContain('Poll orders');

  const report = await verify(card, {
    plates: [{ node: 'Poll refunds' }, { node: 'Poll returns' }, { node: 'Poll invoices' }],
    fixedInputs: { user: EDITOR.username },
    judge,
    change: { before: { disabled: false }, after: { disabled: true } },
    env: { BASE_URL: nr.url, HANDRAIL_SECRET_PASSWORD: EDITOR.password },
    surfaceFactory: () => BrowserSurface.launch({ browser }),
    evidenceRoot: join(dir, 'verify'),
  });
  expect(report, JSON.stringify(report.plates)).toMatchObject({ verified: true, k: 3, n: 3 });

  const ok = await replay(card, EDITOR, 'Poll payments', browser);
  expect(ok, JSON.stringify(ok)).toMatchObject({ word: 'SUCCESS', llm_calls: 0 });
  expect(await disabled('Poll payments')).toBe(true);
  // Nothing else was touched.
  expect(await disabled('Poll shipments')).toBe(false);
});

test('a read-only user’s Deploy is refused in the editor’s notification: never SUCCESS, and the declared outcome once its words are', async ({ browser }) => {
  test.setTimeout(240_000);
  test.skip(!card, 'needs the card the first test authored');
  const refused = await replay(card, VIEWER, 'Poll shipments', browser);
  expect(await disabled('Poll shipments')).toBe(false);
  expect(refused.word, JSON.stringify(refused)).not.toBe('SUCCESS');
  expect(refused, JSON.stringify(refused)).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT' });
  expect(`${refused.message} ${refused.page_text ?? ''}`).toContain('You must be logged in to deploy changes');

  const declared: Capability = structuredClone(card);
  declared.outcomes.business['read_only'] = { screen: 'editor', text: 'You must be logged in to deploy changes', code: 'READ_ONLY_USER' };
  const answered = await replay(declared, VIEWER, 'Poll shipments', browser);
  expect(answered, JSON.stringify(answered)).toMatchObject({ word: 'BUSINESS_OUTCOME', code: 'READ_ONLY_USER', outcome: 'read_only' });
  expect(await disabled('Poll shipments')).toBe(false);
});
