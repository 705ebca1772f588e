// A card's surface is chosen in one place, by its own `surface`: a surface not built yet is refused by name before anything opens, a card may use only what its surface declares, a new surface is added by following docs/design/extending.md's checklist, and the engine never sees the process environment.
import type { SurfaceName } from '../../shared/surfaces.ts';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contentHash } from '../../runner/approval.ts';
import { loadCatalog } from '../../runner/mcp/catalog.ts';
import { runCapability } from '../../runner/run.ts';
import { SurfaceChoiceError, SurfaceRegistry, surfaces } from '../../runner/surfaces.ts';
import { readFileSync } from 'node:fs';
import { Guard } from '../../shared/author/guard.ts';
import { compile } from '../../shared/compile/compile.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { Masker } from '../../shared/secrets.ts';
import { SURFACES } from '../../shared/surfaces.ts';
import { FakeSurface, MemoryBook } from '../fixtures/author/fake-surface.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

/** A 3270-like sign-on: a field named by the protected text to its left, a PF key as a button, a message line. */
function terminalApp(): MemoryApp {
  return {
    screens: {
      signon: {
        title: 'Sign On',
        text: 'PLUMBLINE OPERATOR SIGN ON',
        furniture: ["field 'OPERATOR'", "field 'PASSWORD'"],
        elements: [
          { role: 'textbox', hint: 'Operator', scope: [{ role: 'region', name: 'body' }] },
          { role: 'button', name: 'F5=Sign On', on: { invoke: 'main' } },
        ],
      },
      main: {
        title: 'Main Menu',
        furniture: ["field 'SELECTION'"],
        elements: [{ role: 'text', text: 'SIGNED ON AS OP1001', control: false }],
      },
    },
  };
}

/** Step 1 of "How to add a surface": a Surface that says which declared surface it is. */
class FakeTerminal extends MemorySurface {
  override readonly kind: SurfaceName = 'tn3270';
  override readonly observer = 'fake-terminal/1';
}

function terminalCard(s: MemorySurface, edit: (c: CapabilityInput) => void = () => undefined): CapabilityInput {
  const card: CapabilityInput = {
    schema: 'handrail.capability/v1',
    id: 'sign_on',
    intent: 'Sign on to the terminal.',
    surface: 'tn3270',
    entry: '{{env.BASE_URL}}/signon',
    inputs: { operator: { type: 'string' } },
    screens: { signon: s.screenRecord('signon'), main: s.screenRecord('main') },
    targets: {
      operator_field: {
        role: 'textbox',
        hint: 'Operator',
        supports: ['set_value', 'read'],
        scope: [{ role: 'region', name: 'body' }],
        ladder: [{ rung: 'label', cost: 200 }],
        fingerprint: { over: ['role', 'supports'] },
      },
      sign_on_key: { role: 'button', name: { eq: 'F5=Sign On' }, supports: ['invoke'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role', 'name'] } },
      message: { role: 'text', supports: ['read'], ladder: [{ rung: 'text', cost: 300, value: 'SIGNED ON' }], fingerprint: { over: ['role'] } },
    },
    outputs: { operator: { from_step: 'read_message', regex: 'AS (\\w+)' } },
    steps: [
      { id: 'enter_operator', screen: 'signon', op: { verb: 'set_value', value: '{{input.operator}}' }, target: 'operator_field', effect: { kind: 'stage' } },
      { id: 'sign_on', screen: 'signon', op: { verb: 'invoke' }, target: 'sign_on_key', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'main', timeout_ms: 500 } },
      { id: 'read_message', screen: 'main', op: { verb: 'read' }, target: 'message', effect: { kind: 'read' } },
    ],
    outcomes: { success: { screens: ['main'] } },
    lifecycle: { state: 'draft' },
  };
  edit(card);
  return card;
}

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-surfaces-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A registry in which macOS is declared but not built (and tn3270 has no driver): what a surface not built yet meets. */
const unbuilt = new SurfaceRegistry({
  macos: { declaration: { ...SURFACES.macos, available: false }, open: () => Promise.reject(new Error('a surface not built is never opened')) },
});

describe('the surface registry', () => {
  it('refuses a surface declared but not built, and a name no surface has, naming it', async () => {
    // Every surface the product declares is built now: a registry that has one declared but not built stands in.
    for (const name of ['macos', 'tn3270']) {
      const r = unbuilt.choose(name);
      expect(r).toMatchObject({ ok: false, code: 'SURFACE_UNAVAILABLE', surface: name });
      expect(r.ok ? '' : r.message).toContain(name);
    }
    expect(surfaces.choose('terminal')).toMatchObject({ ok: false, code: 'UNKNOWN_SURFACE', surface: 'terminal' });
    await expect(unbuilt.open('macos')).rejects.toMatchObject({ name: 'SurfaceChoiceError', code: 'SURFACE_UNAVAILABLE', surface: 'macos' });
    expect(surfaces.available()).toEqual(['browser', 'tn3270', 'macos']);
    expect(SurfaceChoiceError).toBeDefined();
  });

  it('a run of a card whose surface is not available is REFUSED by name, before any surface opens', async () => {
    const s = new FakeTerminal(terminalApp());
    let opened = 0;
    const r = await runCapability({
      card: Capability.parse(terminalCard(s, (c) => (c.surface = 'macos'))),
      inputs: { operator: 'OP1001' },
      env: { BASE_URL: 'memory:/' },
      surface: () => (opened++, Promise.resolve(s)),
      registry: unbuilt,
      evidenceDir: path.join(tmp, 'ev'),
    });
    expect(r).toMatchObject({ word: 'REFUSED', code: 'SURFACE_UNAVAILABLE', retryable: false, evidence: null });
    expect(r.message).toContain('macos');
    expect(opened).toBe(0);
  });

  it('serve keeps an approved card whose surface is not available off the menu, saying why', async () => {
    const s = new MemorySurface(terminalApp());
    const card = Capability.parse(terminalCard(s, (c) => (c.surface = 'macos')));
    const approved = { ...card, lifecycle: { ...card.lifecycle, state: 'approved' as const, approval: { by: 'Dana', at: 'now', content_hash: contentHash(card) } } };
    await fs.writeFile(path.join(tmp, 'sign_on.json'), JSON.stringify(approved));
    const catalog = await loadCatalog(tmp, unbuilt);
    expect(catalog.served).toEqual([]);
    expect(catalog.off).toMatchObject([{ why: 'SURFACE_UNAVAILABLE', reason: expect.stringContaining('macos') as string }]);
    const registry = new SurfaceRegistry({ macos: { declaration: { ...SURFACES.macos, available: true }, open: () => Promise.resolve(s) } });
    expect((await loadCatalog(tmp, registry)).served.map((x) => x.card.id)).toEqual(['sign_on']);
  });

  it('a card naming an old or unknown surface does not load, and says which surfaces there are', () => {
    const s = new MemorySurface(terminalApp());
    const bad = Capability.safeParse(terminalCard(s, (c) => ((c as { surface: string }).surface = 'terminal')));
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('tn3270');
  });
});

describe('a card is checked against its surface\'s declaration', () => {
  it('a rung or a scope the surface does not declare does not load, with a message naming both', () => {
    const s = new MemorySurface(terminalApp());
    const css = Capability.safeParse(
      terminalCard(s, (c) => {
        const t = c.targets['sign_on_key'];
        if (t) t.ladder = [{ rung: 'role_name', cost: 100 }, { rung: 'css', cost: 1000, value: '#pf5' }];
      }),
    );
    expect(css.success).toBe(false);
    expect(css.error?.issues.map((i) => i.message).join('\n')).toContain('the tn3270 surface cannot resolve a "css" rung');
    const frame = Capability.safeParse(
      terminalCard(s, (c) => {
        const t = c.targets['operator_field'];
        if (t) t.scope = [{ role: 'frame', name: 'work' }];
      }),
    );
    expect(frame.success).toBe(false);
    expect(frame.error?.issues.map((i) => i.message).join('\n')).toContain('the tn3270 surface has no "frame" scope');
    // The same card on the browser, which declares both, loads.
    expect(Capability.safeParse(terminalCard(s, (c) => (c.surface = 'browser'))).success).toBe(true);
  });

  it('the compiler names the surface the book\'s start line names, and holds the card to that surface', () => {
    const book = readFileSync(new URL('../fixtures/author/plumbline.trace.jsonl', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => TraceLine.parse(JSON.parse(l)));
    const on = (surface: 'browser' | 'macos') => book.map((l) => (l.kind === 'start' ? { ...l, surface } : l));
    const browser = compile(on('browser'), { id: 'plumbline_place_hold' });
    expect(browser.ok && browser.card.surface).toBe('browser');
    // PLUMBLINE acts inside frames, which a macOS surface does not have: the card would not load there.
    const mac = compile(on('macos'), { id: 'plumbline_place_hold' });
    expect(mac.ok).toBe(false);
    expect(mac.ok ? '' : mac.holes.map((h) => h.message).join('\n')).toContain('the macos surface has no "frame" scope');
  });

  it('risk rules are the surface\'s: a link navigates on the browser; on a surface without that rule the owner is asked', async () => {
    const link = { ref: 'r1', role: 'link', name: 'Members', verbs: ['invoke' as const], scope: [], ancestors: [] };
    for (const [kind, expected] of [['browser', { kind: 'navigate', by: 'rule' }], ['tn3270', { kind: 'commit', by: 'owner' }]] as const) {
      const surface = Object.assign(new FakeSurface({ s: { controls: [link], text: '' } }, 's'), { kind });
      const book = new MemoryBook();
      const guard = new Guard({
        surface,
        book,
        masker: new Masker([]),
        goal: 'g',
        inputs: [],
        owner: { ask: () => Promise.resolve({ answer: 'commit', name: 'Olive' }) },
        settle: { quietMs: 0, pollMs: 1 },
      });
      await guard.show();
      await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 'here' } });
      expect((await guard.handle({ id: 'a', name: 'act', input: { row: 1, verb: 'invoke' } })).ok).toBe(true);
      expect((book.lines[1] as { effect: unknown }).effect, kind).toMatchObject(expected);
    }
  });
});

describe('adding a surface by the checklist (docs/design/extending.md, "How to add a surface")', () => {
  it('a fake terminal, registered through a registry with its declaration, replays a card end to end', async () => {
    const s = new FakeTerminal(terminalApp());
    // Steps 1–5: the Surface (FakeTerminal), its declaration (SURFACES.tn3270: rungs, scopes, risk, reachability,
    // evidence, errors), and a driver in the registry. Here the declaration is made available for the test only.
    const registry = new SurfaceRegistry({ tn3270: { declaration: { ...SURFACES.tn3270, available: true }, open: () => Promise.resolve(s) } });
    const r = await runCapability({
      card: Capability.parse(terminalCard(s)),
      inputs: { operator: 'OP1001' },
      env: { BASE_URL: 'memory:/' },
      registry,
      evidenceDir: path.join(tmp, 'ev'),
    });
    expect(r, r.message).toMatchObject({ word: 'SUCCESS', outputs: { operator: 'OP1001' }, steps_done: 3 });
    expect(s.acts.map((a) => `${a.verb} ${a.element}`)).toEqual(['set_value Operator', 'invoke F5=Sign On', 'read SIGNED ON AS OP1001']);
    // The terminal declares text evidence only: no screenshot is asked for or kept.
    const kept = await fs.readdir(path.join(tmp, 'ev'), { recursive: true });
    expect(kept.filter((f) => f.endsWith('.png'))).toEqual([]);
    expect(await fs.readFile(path.join(tmp, 'ev', 'evidence.jsonl'), 'utf8')).not.toContain('screenshot');
  });
});

describe('the engine never sees the process environment', () => {
  const NAME = 'HANDRAIL_PROBE_TOKEN';
  const TOKEN = 'tok-live-7f3a9c1e55d2';
  beforeEach(() => {
    process.env[NAME] = TOKEN;
  });
  afterEach(() => {
    delete process.env[NAME];
  });

  it('an env blank outside the entry does not load', () => {
    const s = new MemorySurface(terminalApp());
    const r = Capability.safeParse(terminalCard(s, (c) => (c.steps[0] = { ...c.steps[0], op: { verb: 'set_value', value: `{{env.${NAME}}}` } } as never)));
    expect(r.success).toBe(false);
  });

  it('a card that slips one past the schema cannot reach it, even when the caller hands the run the whole environment', async () => {
    const s = new FakeTerminal(terminalApp());
    const registry = new SurfaceRegistry({ tn3270: { declaration: { ...SURFACES.tn3270, available: true }, open: () => Promise.resolve(s) } });
    const card = Capability.parse(terminalCard(s));
    // As a tampered card would be after loading: the step now asks for the environment variable.
    const tampered = { ...card, steps: card.steps.map((st, i) => (i === 0 ? { ...st, op: { verb: 'set_value' as const, value: `{{env.${NAME}}}` } } : st)) };
    const r = await runCapability({
      card: tampered,
      inputs: { operator: 'OP1001' },
      env: { ...process.env, BASE_URL: 'memory:/' },
      registry,
      evidenceDir: path.join(tmp, 'ev'),
    });
    expect(r.word).not.toBe('SUCCESS');
    expect(s.acts.some((a) => a.value?.includes(TOKEN))).toBe(false);
    expect(JSON.stringify(r)).not.toContain(TOKEN);
    const log = await fs.readFile(path.join(tmp, 'ev', 'evidence.jsonl'), 'utf8');
    expect(r.code).toBe('INTERNAL');
    expect(log).not.toContain(TOKEN);
  });
});
