// A secret is typed only into a field the surface reports as secret, unless the card's step says so; a screenshot
// of a screen whose field holds a secret is masked, and the evidence records that it was.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Replay } from '../../runner/engine/engine.ts';
import { runCapability } from '../../runner/run.ts';
import { Evidence, LOG_FILE } from '../../runner/evidence.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { Masker } from '../../shared/secrets.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const SECRET = 'tr0ub4dor-and-3';
/** A secret the caller knows that is no input of the card (verify masks every HANDRAIL_SECRET_* it was given). */
const OTHER = 'session-key-0xC0FFEE';

/** A sign-on screen with a plain field and a password field; Next leads to a screen whose Back returns to it. */
function app(): MemoryApp {
  return {
    screens: {
      signon: {
        title: 'Sign On',
        furniture: ["heading 'Sign On'"],
        elements: [
          { role: 'textbox', hint: 'Operator ID', ancestors: ['form'] },
          { role: 'textbox', hint: 'Password', secret: true, ancestors: ['form'] },
          { role: 'button', name: 'Next', ancestors: ['form'], on: { invoke: 'next' } },
        ],
      },
      next: { title: 'Next', furniture: ["heading 'Next'"], text: `SESSION ${OTHER}`, elements: [{ role: 'link', name: 'Back', on: { invoke: 'signon' } }] },
    },
  };
}

function card(s: MemorySurface, field: 'Operator ID' | 'Password', showsSecret = false): Capability {
  const c: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'secret_typing',
    intent: 'Type a secret, go on and come back.',
    surface: 'browser',
    entry: 'memory://signon',
    inputs: { token: { type: 'string', secret: true } },
    screens: { signon: s.screenRecord('signon'), next: s.screenRecord('next') },
    targets: {
      field: { role: 'textbox', hint: field, supports: ['set_value', 'read'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
      next: { role: 'button', name: { eq: 'Next' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
      back: { role: 'link', name: { eq: 'Back' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
    },
    steps: [
      { id: 'type_token', screen: 'signon', op: { verb: 'set_value', value: '{{input.token}}' }, target: 'field', effect: { kind: 'stage' }, ...(showsSecret ? { shows_secret: true as const } : {}) },
      { id: 'go_on', screen: 'signon', op: { verb: 'invoke' }, target: 'next', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'next', timeout_ms: 200 } },
      { id: 'come_back', screen: 'next', op: { verb: 'invoke' }, target: 'back', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'signon', timeout_ms: 200 } },
    ],
    outcomes: { success: { screens: ['signon'] } },
    lifecycle: { state: 'draft' },
  };
  return Capability.parse(c);
}

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-secret-fields-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

async function replay(s: MemorySurface, c: Capability) {
  const masker = new Masker([{ name: 'token', value: SECRET }]);
  const evidence = await Evidence.create(tmp, masker, 'run-1');
  try {
    const result = await new Replay({ card: c, inputs: { token: SECRET }, entry: c.entry, runId: 'run-1', masker, evidence, journal: null }, s).run();
    return { result, log: await fs.readFile(path.join(tmp, LOG_FILE), 'utf8') };
  } finally {
    await evidence.close();
  }
}

it('refuses to type a secret into a field that shows it: FAILED SECRET_FIELD, nothing typed', async () => {
  const s = new MemorySurface(app());
  const { result } = await replay(s, card(s, 'Operator ID'));
  expect(result).toMatchObject({ word: 'FAILED', code: 'SECRET_FIELD', at_step: 'type_token', retryable: false });
  expect(s.acts).toEqual([]);
});

it('types it into a password field, and the screenshot of the screen holding it is masked, the evidence says so', async () => {
  const s = new MemorySurface(app());
  const { result, log } = await replay(s, card(s, 'Password'));
  expect(result).toMatchObject({ word: 'SUCCESS' });
  const masked = log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { kind: string; data: Record<string, unknown> }).filter((l) => l.kind === 'screenshot_masked');
  expect(masked).toEqual([expect.objectContaining({ data: expect.objectContaining({ secret_fields: 1 }) })]);
  expect(log).not.toContain(SECRET);
});

it('types it into a field that shows it when the step says so', async () => {
  const s = new MemorySurface(app());
  const { result } = await replay(s, card(s, 'Operator ID', true));
  expect(result).toMatchObject({ word: 'SUCCESS' });
  expect(s.acts[0]).toMatchObject({ verb: 'set_value', element: expect.anything() });
});

it('one masker: a run uses the masker its caller hands it, so what the caller knows is masked in the run\'s evidence too', async () => {
  const s = new MemorySurface(app());
  // The way back is gone: the run fails on the screen that shows the caller's secret, and keeps its text.
  const c = Capability.parse({ ...card(s, 'Password'), targets: { ...card(s, 'Password').targets, back: { ...card(s, 'Password').targets['back'], name: { eq: 'Nowhere' } } } });
  const evidenceDir = path.join(tmp, 'shared-masker');
  const masker = new Masker([{ name: 'session', value: OTHER }]);
  const result = await runCapability({ card: c, inputs: { token: SECRET }, env: {}, surface: () => Promise.resolve(s), evidenceDir, allowUnapproved: true, masker });
  expect(result).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND' });
  expect(JSON.stringify(result)).not.toContain(OTHER);
  const all = (await fs.readdir(evidenceDir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  const text = (await Promise.all(all.map((f) => fs.readFile(f, 'utf8')))).join('\n');
  expect(text).toContain('[secret:session]');
  expect(text).not.toContain(OTHER);
  expect(text).not.toContain(SECRET);
  // The run added its own secret to the caller's masker: the caller masks it too.
  expect(masker.mask(`typed ${SECRET}`)).toBe('typed [secret:token]');
});
