// A hostile or careless card file is refused quickly, with a short typed message naming the path: duplicate keys,
// prototype keys and references, oversized parts, and regular expressions that would hang or never compile.
import { describe, expect, it } from 'vitest';
import { validateInputs } from '../../shared/inputs.ts';
import { compileSafe, PatternError, patternProblem } from '../../shared/regex.ts';
import { formatIssues, loadCapability, MAX_ISSUES, type SchemaIssue } from '../../shared/schema/index.ts';
import { LIMITS } from '../../shared/schema/json.ts';
import { inputSchemaFor } from '../../runner/mcp/tools.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

type Card = ReturnType<typeof minimalCard>;

const text = (mutate: (c: Card) => void = () => undefined): string => {
  const c = structuredClone(minimalCard());
  mutate(c);
  return JSON.stringify(c, null, 2);
};

function refused(source: string | unknown): SchemaIssue[] {
  const r = loadCapability(source);
  if (r.ok) throw new Error('expected the card to be refused');
  return r.issues;
}

const timed = <T>(fn: () => T): { value: T; ms: number } => {
  const t = performance.now();
  const value = fn();
  return { value, ms: performance.now() - t };
};

describe('duplicate keys and prototype keys', () => {
  it('refuses lifecycle.state given twice (JSON.parse would keep the last one)', () => {
    const src = text().replace('"state": "verified"', '"state": "draft", "state": "approved"');
    const issues = refused(src);
    expect(issues).toEqual([{ path: 'lifecycle.state', message: 'the key "state" appears twice in one object; say it once' }]);
  });

  it.each(['__proto__', 'constructor', 'prototype'])('refuses %s as a key, wherever it stands', (key) => {
    const src = text().replace('"intent":', `"targets2": 1, "${key}": {"polluted": true}, "intent":`);
    const issues = refused(src);
    expect(issues[0]?.path).toBe(key);
    expect(issues[0]?.message).toMatch(/not allowed/);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses __proto__ as a key in an already-parsed value (e.g. a message from the extension)', () => {
    const card = JSON.parse(text().replace('"inputs": {', '"inputs": {"__proto__": {"type": "string"},')) as unknown;
    expect(refused(card)[0]).toMatchObject({ path: 'inputs.__proto__' });
    expect(Object.prototype).not.toHaveProperty('type');
  });

  it.each([
    ['target', (c: Card) => void (c.steps[2]!.target = 'constructor'), 'steps[2].target'],
    ['screen', (c: Card) => void (c.steps[0]!.screen = 'constructor'), 'steps[0].screen'],
    ['success screen', (c: Card) => void (c.outcomes.success.screens = ['prototype']), 'outcomes.success.screens[0]'],
    ['output step', (c: Card) => void (c.outputs!['confirmation']!.from_step = 'constructor'), 'outputs.confirmation.from_step'],
  ])('refuses a %s reference that names a prototype member', (_what, mutate, path) => {
    const issues = refused(text(mutate));
    expect(issues).toEqual([{ path, message: expect.stringMatching(/cannot name a part of a card/) as string }]);
  });
});

describe('size caps, checked before deep parsing', () => {
  it('refuses a 10 MB string in well under a second, and the message is short', () => {
    const huge = 'x'.repeat(10_000_000);
    for (const src of [text((c) => (c.intent = huge)), `{"intent": "${huge}"}`]) {
      const { value: r, ms } = timed(() => loadCapability(src));
      expect(r.ok).toBe(false);
      expect(ms).toBeLessThan(1000);
      if (!r.ok) expect(formatIssues(r.issues).length).toBeLessThan(500);
    }
  });

  it('refuses a string over the cap in a file under the file cap, naming its path', () => {
    const issues = refused(text((c) => (c.intent = 'y'.repeat(LIMITS.maxString + 1))));
    expect(issues[0]?.path).toBe('intent');
    expect(issues[0]?.message).toMatch(/at most 65536/);
  });

  it('refuses a huge key without quoting it whole', () => {
    const key = 'k'.repeat(LIMITS.maxString - 10);
    const out = formatIssues(refused(text((c) => ((c.screens as Record<string, unknown>)[key] = {}))));
    expect(out.length).toBeLessThan(2000);
  });

  it('refuses arrays over the cap and nesting over the cap', () => {
    const arr = refused(text((c) => (c.lifecycle.review_notes = Array.from({ length: LIMITS.maxArray + 1 }, () => 'n'))));
    expect(arr[0]).toMatchObject({ path: 'lifecycle.review_notes', message: expect.stringMatching(/more than 10000 items/) as string });
    const deep = `{"intent": ${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const { value: r, ms } = timed(() => loadCapability(deep));
    expect(ms).toBeLessThan(1000);
    expect(r.ok ? null : r.issues[0]?.message).toMatch(/nested deeper than 64/);
    const obj: Record<string, unknown> = {};
    let at = obj;
    for (let i = 0; i < 1000; i++) at = (at['a'] = {}) as Record<string, unknown>;
    expect(refused(obj)[0]?.message).toMatch(/nested deeper than 64/);
  });

  it('lists at most MAX_ISSUES issues, each clipped', () => {
    const src = text((c) => {
      for (let i = 0; i < 200; i++) (c as Record<string, unknown>)[`junk_${i}_${'z'.repeat(2000)}`] = 1;
    });
    const out = formatIssues(refused(src));
    expect(out.split('\n').length).toBeLessThanOrEqual(MAX_ISSUES + 1);
    expect(out.length).toBeLessThan(30_000);
  });

  it('reports syntax errors with a line and column, not the text', () => {
    expect(refused('{"schema": ')[0]?.message).toMatch(/^not valid JSON: the text ends early at line 1/);
    expect(refused('{"a": 1} x')[0]?.message).toMatch(/text after the end/);
  });
});

describe('regular expressions', () => {
  const EVIL = ['(a+)+$', '(a|aa)+$', '(x+x+)+y', '^(a|a?)+$', '(\\w+\\s?)+$'];

  it.each(EVIL)('an input pattern %s never hangs the check (< 1 s on hostile input)', (pattern) => {
    const card = structuredClone(minimalCard());
    card.inputs!['member_number'] = { type: 'string', pattern, max_length: 100_000 };
    const loaded = loadCapability(card);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    const { value: check, ms } = timed(() => validateInputs(loaded.value, { member_number: `${'a'.repeat(50_000)}!`, password: 'hunter2' }));
    expect(ms).toBeLessThan(1000);
    expect(check.ok).toBe(false);
  });

  it.each(EVIL)('an outcome text %s runs in linear time in the engine matcher', (pattern) => {
    const { ms } = timed(() => compileSafe(pattern).test(`${'a'.repeat(50_000)}!`));
    expect(ms).toBeLessThan(1000);
  });

  it('the MCP argument check uses the same linear-time matcher', () => {
    const card = loadCapability(text((c) => (c.inputs!['member_number'] = { type: 'string', pattern: '(a+)+$', max_length: 100_000 })));
    if (!card.ok) throw new Error('card should load');
    const { value: r, ms } = timed(() => inputSchemaFor(card.value).safeParse({ member_number: `${'a'.repeat(50_000)}!` }));
    expect(ms).toBeLessThan(1000);
    expect(r.success).toBe(false);
  });

  it.each([
    ['an outcome text', (c: Card) => (c.outcomes.business!['already_held']!.text = 'ALREADY (HELD'), 'outcomes.business.already_held.text'],
    ['an output regex', (c: Card) => ((c.outputs!['confirmation'] as { regex: string }).regex = 'HX-(\\d{6}'), 'outputs.confirmation.regex'],
    ['an input pattern', (c: Card) => (c.inputs!['member_number']!.pattern = '[0-9'), 'inputs.member_number.pattern'],
    ['a backreference', (c: Card) => (c.outcomes.business!['already_held']!.text = '(A)\\1'), 'outcomes.business.already_held.text'],
    ['a lookbehind', (c: Card) => ((c.outputs!['confirmation'] as { regex: string }).regex = '(?<=HX-)\\d+'), 'outputs.confirmation.regex'],
  ])('refuses %s that does not compile at load, naming the field', (_what, mutate, path) => {
    const issues = refused(text(mutate));
    expect(issues).toContainEqual({ path, message: expect.stringMatching(/not a valid regular expression/) as string });
  });

  it('compileSafe finds, captures and refuses like the engine needs', () => {
    expect(compileSafe('HX-(\\d{6})').exec('ok HX-123456.')?.[1]).toBe('123456');
    expect(compileSafe('SIGNED OFF|SESSION EXPIRED').test('YOUR SESSION EXPIRED')).toBe(true);
    expect(compileSafe('\\d{6}', { full: true }).test('1234567')).toBe(false);
    expect(() => compileSafe('(')).toThrow(PatternError);
    expect(patternProblem('x'.repeat(2000))).toMatch(/at most 1000/);
    expect(patternProblem('.{0,1000}')).toMatch(/instructions; at most 300/);
    // At run time an outcome text may be longer: its input blanks are filled with escaped values.
    expect(compileSafe(`HOLD ${'x'.repeat(2000)} POSTED`).test(`HOLD ${'x'.repeat(2000)} POSTED`)).toBe(true);
  });
});
