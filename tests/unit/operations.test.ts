// Every reader of the operations table agrees with it: the menu, the guard, the card schema, the compiler's wording, the engine's journal rule and the MCP hints all say what shared/operations.ts says, and nothing else; gestures a page listens for are offered beside a control's vocabulary, never hashed.
import { describe, expect, it } from 'vitest';
import { JOURNALLED as ENGINE_JOURNALLED } from '../../runner/engine/engine.ts';
import { annotationsFor } from '../../runner/mcp/tools.ts';
import { Guard } from '../../shared/author/guard.ts';
import { fingerprint } from '../../shared/fingerprint.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import { EFFECTS, intentText, JOURNALLED, KEYS, outsideValues, takesValue, VERBS } from '../../shared/operations.ts';
import { TOOLS } from '../../shared/author/prompt.ts';
import { VERBS_BY_ROLE } from '../../shared/dom/walk.ts';
import { Capability, EffectKind, FingerprintField, type CapabilityInput } from '../../shared/schema/capability.ts';
import { Verb, type Control } from '../../shared/schema/observation.ts';
import { Masker } from '../../shared/secrets.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';
import { FakeSurface, MemoryBook } from '../fixtures/author/fake-surface.ts';

const ALL_VERBS = Verb.options;
/** A value each verb takes: the first of its closed set (press: a key), else any literal. */
const sample = (verb: Verb): string => VERBS[verb].values?.[0] ?? 'x';

describe('the operations table', () => {
  it('has one row per verb and per effect sticker, no more', () => {
    expect(Object.keys(VERBS).sort()).toEqual([...ALL_VERBS].sort());
    expect(Object.keys(EFFECTS).sort()).toEqual([...EffectKind.options].sort());
  });

  it('the engine journals exactly the stickers the table marks journalled', () => {
    expect(ENGINE_JOURNALLED).toBe(JOURNALLED);
    expect([...JOURNALLED].sort()).toEqual(EffectKind.options.filter((k) => EFFECTS[k].journalled).sort());
  });

  it('the menu offers exactly the verbs the table puts on it', () => {
    const c: Control = { ref: 'r1', role: 'textbox', name: 'Everything', verbs: [...ALL_VERBS], scope: [], ancestors: [] };
    const rows = buildMenu({ parts: [{ part: [], locus: { url: 'x', title: 'x' }, controls: [c], paths: [], text: '' }] });
    expect(rows.map((r) => r.verb)).toEqual(ALL_VERBS.filter((v) => VERBS[v].menu));
  });

  it('a verb the table offers with others is on the menu for every control taking one of them, after the rows a screen always had, and in no role\'s vocabulary', () => {
    for (const verb of ALL_VERBS.filter((v) => VERBS[v].with)) {
      for (const [role, listed] of Object.entries(VERBS_BY_ROLE)) {
        // In a role's vocabulary it would change the fingerprint of every approved target of that role.
        expect(listed, `${role} lists ${verb}`).not.toContain(verb);
        const field: Control = { ref: 'r1', role, name: 'F', verbs: [...listed], scope: [], ancestors: [] };
        const other: Control = { ref: 'r2', role: 'button', name: 'Go', verbs: ['invoke'], scope: [], ancestors: [] };
        const rows = buildMenu({ parts: [{ part: [], locus: { url: 'x', title: 'x' }, controls: [field, other], paths: [], text: '' }] });
        const offered = rows.some((r) => r.verb === verb && r.control === field);
        expect(offered, `${verb} on ${role}`).toBe(listed.some((v) => VERBS[verb].with?.includes(v)));
        if (offered) expect(rows.at(-1)).toMatchObject({ verb, control: field });
      }
    }
  });

  it('a gesture the page listens for (Control.offers) is on the menu after the rows a screen always had, in no role\'s vocabulary, and no fingerprint hashes it', () => {
    const plain: Control = { ref: 'r1', role: 'button', name: 'Open', verbs: ['invoke'], scope: [], ancestors: ['list'] };
    const field: Control = { ref: 'r2', role: 'textbox', name: 'Title', verbs: ['set_value', 'read'], scope: [], ancestors: [] };
    const listening: Control = { ...plain, offers: ['double_click', 'context_menu'] };
    const menu = (controls: Control[]) => buildMenu({ parts: [{ part: [], locus: { url: 'x', title: 'x' }, controls, paths: [], text: '' }] }).map(renderRow);
    const before = menu([plain, field]);
    const after = menu([listening, field]);
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length)).toEqual(["4: double_click button 'Open'", "5: context_menu button 'Open'"]);
    const over = FingerprintField.options;
    expect(fingerprint(listening, over, 'walker')).toBe(fingerprint(plain, over, 'walker'));
    for (const [role, listed] of Object.entries(VERBS_BY_ROLE)) {
      for (const gesture of ['double_click', 'context_menu'] as const) expect(listed, `${role} lists ${gesture}`).not.toContain(gesture);
    }
  });

  it('the model is told the table\'s menu verbs and the keys press takes, and the guard refuses a key outside them', async () => {
    const act = TOOLS.find((t) => t.name === 'act');
    expect(act?.input_schema.properties.verb.enum).toEqual(ALL_VERBS.filter((v) => VERBS[v].menu));
    for (const key of KEYS) expect(act?.input_schema.properties.value.description).toContain(key);
    const control: Control = { ref: 'r1', role: 'textbox', name: 'New case', verbs: ['set_value', 'read'], scope: [], ancestors: [] };
    const guard = new Guard({
      surface: new FakeSurface({ s: { controls: [control], text: '' } }, 's'),
      book: new MemoryBook(),
      masker: new Masker([]),
      goal: 'g',
      inputs: [],
      owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive' }) },
      settle: { quietMs: 0, pollMs: 1 },
    });
    await guard.show();
    await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 's' } });
    const out = await guard.handle({ id: 'a', name: 'act', input: { row: 2, verb: 'press', value: 'F13' } });
    expect(out.text).toMatch(/^refused \(VALUE_NOT_IN_SET\): press takes one of Enter, Escape/);
    expect(outsideValues('press', 'Enter')).toBeNull();
    expect(outsideValues('set_value', 'anything at all')).toBeNull();
  });

  it('the card schema wants a value exactly for the verbs that take one, and the read sticker exactly for read', () => {
    for (const verb of ALL_VERBS) {
      for (const withValue of [true, false]) {
        const card = minimalCard() as CapabilityInput & { targets: Record<string, { supports: string[] }> };
        const t = card.targets['password_field'];
        if (t) t.supports = [...ALL_VERBS];
        const sticker = VERBS[verb].sticker === 'read' ? 'read' : 'stage';
        card.steps = [{ id: 'only', screen: 'signon', op: { verb, ...(withValue ? { value: sample(verb) } : {}) }, target: 'password_field', effect: { kind: sticker } }];
        card.outputs = {};
        // read_rows reads a table into a rows output (docs/design/capability.md, "Rows as outputs").
        if (verb === 'read_rows' && t) {
          (t as { role: string }).role = 'table';
          card.outputs = { rows: { kind: 'rows', from_step: 'only', columns: { a: { header: 'A' } } } };
        }
        card.outcomes = { success: { screens: ['signon'] } };
        const loaded = Capability.safeParse(card);
        expect(loaded.success, `${verb} ${withValue ? 'with' : 'without'} a value`).toBe(withValue === takesValue(verb));
      }
      const card = minimalCard();
      card.steps = [{ id: 'only', screen: 'signon', op: { verb: 'read' }, target: 'password_field', effect: { kind: 'stage' } }];
      expect(Capability.safeParse(card).success).toBe(false);
    }
  });

  it('the guard stickers each verb as the table says, and asks the owner only where the table says risk decides', async () => {
    for (const verb of ALL_VERBS.filter((v) => VERBS[v].menu)) {
      const control: Control = { ref: 'r1', role: 'button', name: 'Do It', verbs: [verb], scope: [], ancestors: [] };
      const surface = new FakeSurface({ s: { controls: [control], text: '' } }, 's');
      const book = new MemoryBook();
      let asked = 0;
      const guard = new Guard({
        surface,
        book,
        masker: new Masker([]),
        goal: 'g',
        inputs: [],
        owner: { ask: () => (asked++, Promise.resolve({ answer: 'commit', name: 'Olive' })) },
        settle: { quietMs: 0, pollMs: 1 },
      });
      await guard.show();
      await guard.handle({ id: 'l', name: 'assert_screen', input: { label: 's' } });
      const out = await guard.handle({ id: 'a', name: 'act', input: { row: 1, verb, ...(takesValue(verb) ? { value: sample(verb) } : {}) } });
      expect(out.ok, out.text).toBe(true);
      const line = book.lines[1] as { effect: { kind: string; by: string } };
      const rule = VERBS[verb].sticker;
      expect(line.effect).toMatchObject(rule === 'by_risk' ? { kind: 'commit', by: 'owner' } : { kind: rule, by: 'rule' });
      expect(asked).toBe(rule === 'by_risk' ? 1 : 0);
    }
  });

  it('a card pressing a key outside the set does not load, and the error names the step\'s value', () => {
    const card = minimalCard() as CapabilityInput & { targets: Record<string, { supports: string[] }> };
    const t = card.targets['password_field'];
    if (t) t.supports = ['set_value', 'press'];
    card.outputs = {};
    card.outcomes = { success: { screens: ['signon'] } };
    for (const [key, loads] of [['Enter', true], ['{{input.password}}', true], ['F13', false]] as const) {
      card.steps = [{ id: 'only', screen: 'signon', op: { verb: 'press', value: key }, target: 'password_field', effect: { kind: 'stage' } }];
      const loaded = Capability.safeParse(card);
      expect(loaded.success, key).toBe(loads);
      if (!loaded.success) {
        expect(loaded.error.issues).toContainEqual(expect.objectContaining({ path: ['steps', 0, 'op', 'value'], message: expect.stringContaining('press takes one of Enter') as unknown }));
      }
    }
  });

  it('the MCP hints are the table\'s, for a card of each sticker', () => {
    for (const kind of EffectKind.options) {
      const card = minimalCard();
      card.steps = [
        {
          id: 'only',
          screen: 'signon',
          op: kind === 'read' ? { verb: 'read' } : { verb: 'set_value', value: 'x' },
          target: 'password_field',
          effect: { kind, ...(kind === 'commit' ? { confirmed_by: { owner: 'dana' } } : {}) },
          ...(kind === 'commit' ? { settle: { kind: 'screen_is' as const, screen: 'posted' }, no_record: true as const } : {}),
        },
      ];
      card.outputs = {};
      const hints = annotationsFor(Capability.parse(card));
      expect(hints, kind).toMatchObject({
        readOnlyHint: !EFFECTS[kind].changes,
        destructiveHint: EFFECTS[kind].destructive,
        idempotentHint: !EFFECTS[kind].destructive,
      });
    }
  });

  it('the compiler\'s step wording is the table\'s, a typed `$&` staying typed', () => {
    expect(intentText('set_value', "textbox 'Member'", '{{input.member}}')).toBe("Type {{input.member}} into textbox 'Member'");
    expect(intentText('select', "combobox 'Reason'", '$&')).toBe("Choose $& in combobox 'Reason'");
    for (const v of ALL_VERBS) expect(intentText(v, 'W', 'V')).toContain('W');
  });
});
