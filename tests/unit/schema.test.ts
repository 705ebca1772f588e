// A reviewer can trust the card format: good cards load, and every kind of bad card is refused
// with a message that names the JSON path and what was expected.
import { describe, expect, it } from 'vitest';
import { Capability, loadCapability, RunResult, type SchemaIssue } from '../../shared/schema/index.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

type Card = ReturnType<typeof minimalCard>;

function refuse(mutate: (c: Card) => void): SchemaIssue[] {
  const card = structuredClone(minimalCard());
  mutate(card);
  const r = loadCapability(card);
  if (r.ok) throw new Error('expected the card to be refused');
  return r.issues;
}

describe('capability schema', () => {
  it('loads a good card and fills defaults', () => {
    const r = loadCapability(JSON.stringify(minimalCard()));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.inputs['password']?.secret).toBe(true);
    expect(r.value.inputs['member_number']?.secret).toBe(false);
    expect(r.value.steps[0]?.settle).toEqual({ kind: 'none' });
    expect(r.value.outcomes.recovery).toEqual({});
  });

  it('refuses a step without an effect sticker, naming the step', () => {
    const issues = refuse((c) => {
      delete (c.steps[1] as { effect?: unknown }).effect;
    });
    expect(issues).toContainEqual({
      path: 'steps[1].effect',
      message: 'missing effect sticker: every step needs one of read, navigate, stage, commit',
    });
  });

  it('refuses an unknown sticker and lists the legal ones', () => {
    const issues = refuse((c) => {
      (c.steps[0] as { effect: unknown }).effect = { kind: 'write' };
    });
    expect(issues).toContainEqual({
      path: 'steps[0].effect.kind',
      message: 'expected one of "read", "navigate", "stage", "commit"',
    });
  });

  it.each(['verified', 'approved'] as const)('a commit nobody confirmed cannot be %s', (state) => {
    const issues = refuse((c) => {
      delete (c.steps[1]!.effect as { confirmed_by?: unknown }).confirmed_by;
      c.lifecycle = {
        state,
        approval: { by: 'x', at: 'now', content_hash: `sha256:${'0'.repeat(64)}` },
      };
    });
    expect(issues.map((i) => i.path)).toContain('steps[1].effect.confirmed_by');
    expect(issues.find((i) => i.path === 'steps[1].effect.confirmed_by')?.message).toMatch(/never confirmed by an owner/);
  });

  it('refuses a commit without a postcondition that can land on a screen an earlier step ran on, naming that step', () => {
    const issues = refuse((c) => {
      // As if the press were made in a dialog over the result page and could close back to the sign-on page the
      // card started on.
      c.steps[1]!.screen = 'posted';
      c.steps[1]!.settle = { kind: 'screen_in', screens: ['posted_again', 'signon'] };
      c.steps[1]!.expect = { screen_in: ['posted_again', 'signon'] };
    });
    expect(issues.find((i) => i.path === 'steps[1].post')?.message).toMatch(/can end on signon, a screen the card showed before it \(step "enter_password"\)/);
    // A screen only a declared outcome's rule decides (the sign-on page a session timeout shows) needs none.
    const decided = structuredClone(minimalCard());
    decided.steps[1]!.screen = 'posted';
    decided.steps[1]!.settle = { kind: 'screen_in', screens: ['posted_again', 'signon'] };
    decided.steps[1]!.expect = { screen_in: ['posted_again', 'signon'] };
    decided.outcomes.recovery = { session_expired: { screen: 'signon', code: 'SESSION_EXPIRED' } };
    const r = loadCapability(decided);
    expect(r.ok ? [] : r.issues.filter((i) => i.path === 'steps[1].post')).toEqual([]);
    // Landing on its own screen is said as such.
    const own = refuse((c) => {
      c.steps[1]!.settle = { kind: 'screen_in', screens: ['posted', 'signon'] };
      c.steps[1]!.expect = { screen_in: ['posted', 'signon'] };
    });
    expect(own.find((i) => i.path === 'steps[1].post')?.message).toMatch(/can end on the screen it started on \(signon\)/);
  });

  it('refuses a postcondition that could never match or would hold a secret: spaces at an end, a role not in lower case, a secret blank', () => {
    const spaced = refuse((c) => (c.steps[1]!.post = [{ kind: 'text', contains: 'HOLD POSTED ' }]));
    expect(spaced.find((i) => i.path === 'steps[1].post[0].contains')?.message).toMatch(/must not be blank or begin or end with a space/);
    const role = refuse((c) => (c.steps[1]!.post = [{ kind: 'control', role: 'Row', name: 'x' }]));
    expect(role.find((i) => i.path === 'steps[1].post[0].role')?.message).toMatch(/lower-case letters/);
    const secret = refuse((c) => (c.steps[1]!.post = [{ kind: 'control', role: 'row', name: 'Signed on {{input.password}}' }]));
    expect(secret.find((i) => i.path === 'steps[1].post[0]')?.message).toMatch(/\{\{input.password\}\} is a secret: a secret never proves a commit/);
  });

  it('a commit nobody confirmed may stay a draft', () => {
    const card = structuredClone(minimalCard());
    delete (card.steps[1]!.effect as { confirmed_by?: unknown }).confirmed_by;
    card.lifecycle = { state: 'draft' };
    expect(loadCapability(card).ok).toBe(true);
  });

  it('refuses a blank that names no declared input, wherever it stands', () => {
    const issues = refuse((c) => {
      c.targets['member_link']!.name = { eq: '{{input.member_no}}' };
      c.targets['member_link']!.scope = [{ role: 'row', name: '{{input.share}}' }];
      c.steps[0]!.op.value = '{{input.pasword}}';
    });
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['targets.member_link.name.eq', 'targets.member_link.scope[0].name', 'steps[0].op.value']),
    );
    expect(issues.find((i) => i.path === 'steps[0].op.value')?.message).toContain(
      '{{input.pasword}} names no declared input (declared: member_number, password)',
    );
  });

  it('reports every problem at once, not just the first', () => {
    const issues = refuse((c) => {
      delete (c.steps[0] as { effect?: unknown }).effect;
      c.steps[1]!.target = 'nope';
      c.steps[2]!.screen = 'elsewhere';
    });
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['steps[0].effect', 'steps[1].target', 'steps[2].screen']),
    );
  });

  it('keeps CSS as the last and dearest rung', () => {
    const issues = refuse((c) => {
      c.targets['member_link']!.ladder = [
        { rung: 'css', cost: 50, value: 'a' },
        { rung: 'role_name', cost: 40 },
      ];
    });
    expect(issues).toContainEqual({ path: 'targets.member_link.ladder[0]', message: 'a css rung may only be the last and dearest rung' });
    expect(issues.map((i) => i.path)).toContain('targets.member_link.ladder[1].cost');
  });

  it('refuses a verb the target does not take, and a value on invoke', () => {
    const issues = refuse((c) => {
      c.steps[1]!.op = { verb: 'select', value: 'x' };
      c.steps[0]!.op = { verb: 'set_value' };
    });
    expect(issues.find((i) => i.path === 'steps[1].op.verb')?.message).toBe(
      'target "member_link" does not take "select" (it supports invoke)',
    );
    expect(issues.map((i) => i.path)).toContain('steps[0].op.value');
  });

  it('refuses unknown fields by name, and wrong types by what was expected', () => {
    const issues = refuse((c) => {
      (c as Record<string, unknown>)['colour'] = 'blue';
      (c.inputs!['member_number'] as Record<string, unknown>)['type'] = 7;
    });
    expect(issues).toContainEqual({ path: '(root)', message: 'unknown field "colour"' });
    expect(issues.find((i) => i.path === 'inputs.member_number.type')?.message).toMatch(/expected one of/);
  });

  it('refuses an output that does not come from a read step, and a bad regex', () => {
    const issues = refuse((c) => {
      c.outputs = { confirmation: { from_step: 'post', regex: '(' } };
    });
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['outputs.confirmation.from_step', 'outputs.confirmation.regex']),
    );
  });

  it('keeps business outcomes, recovery and failure as three distinct keys', () => {
    const issues = refuse((c) => {
      (c.outcomes as Record<string, unknown>)['errors'] = {};
    });
    expect(issues).toContainEqual({ path: 'outcomes', message: 'unknown field "errors"' });
  });

  it('an approved card must carry who approved it and the content hash', () => {
    const issues = refuse((c) => {
      c.lifecycle = { state: 'approved' };
    });
    expect(issues).toContainEqual({
      path: 'lifecycle.approval',
      message: 'an approved card must name who approved it and the content hash',
    });
  });

  it('reports bad JSON as a clear message, never a throw', () => {
    const r = loadCapability('{"schema": ');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/^not valid JSON/);
  });

  it('generates a JSON Schema from the same zod source', async () => {
    const { z } = await import('zod');
    const json = z.toJSONSchema(Capability, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    expect(json['type']).toBe('object');
    expect(Object.keys(json['properties'] as object)).toEqual(expect.arrayContaining(['steps', 'targets', 'outcomes']));
  });
});

describe('run result', () => {
  const base = {
    word: 'SUCCESS', code: 'OK', retryable: false, message: 'done', card: 'c', run_id: 'r', outputs: {},
    llm_calls: 0, classifier_calls: 0, rungs: {}, screen: 'posted', steps_done: 3, evidence: null, duration_ms: 1,
  };
  it('only RECOVERABLE may say retryable', () => {
    expect(RunResult.safeParse(base).success).toBe(true);
    expect(RunResult.safeParse({ ...base, retryable: true }).success).toBe(false);
    expect(RunResult.safeParse({ ...base, word: 'RECOVERABLE', retryable: true }).success).toBe(true);
    expect(RunResult.safeParse({ ...base, word: 'NOT_A_WORD' }).success).toBe(false);
  });
});

describe('books written before observations were surface-neutral', () => {
  it("read a screen's browser url as its locus, and keep a locus as it is", async () => {
    const { ScreenSeen } = await import('../../shared/schema/trace.ts');
    expect(ScreenSeen.parse({ url: 'http://x/desk', signature: 's', paths: [], label: null }).locus).toEqual({ url: 'http://x/desk' });
    expect(ScreenSeen.parse({ locus: { host: 'h', screen: 'HOLD01' }, signature: 's', paths: [], label: 'hold' }).locus).toEqual({ host: 'h', screen: 'HOLD01' });
    expect(() => ScreenSeen.parse({ signature: 's', paths: [], label: null })).toThrow(/locus/);
  });
});
