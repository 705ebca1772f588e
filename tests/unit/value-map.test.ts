// A caller names a choice in the business's words (reason LEGAL) and the card types the application's code for it
// (1): the map is part of the card, an unknown word is refused naming the input and the words it takes before anything
// is opened or pressed, the MCP tool offers the words as an enum, and what is compared or judged stays the word.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inputSchemaFor } from '../../runner/mcp/tools.ts';
import { Replay } from '../../runner/engine/engine.ts';
import { Evidence } from '../../runner/evidence.ts';
import { runCapability } from '../../runner/run.ts';
import { showText } from '../../runner/cli/show.ts';
import { typedInputs, validateInputs } from '../../shared/inputs.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/capability.ts';
import { Masker } from '../../shared/secrets.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

const REASONS = { LEGAL: '1', FRAUD_REVIEW: '2', GARNISHMENT: '3', DECEASED: '4', OTHER: '5' };

/** A hold form whose reason field takes a code, and a review screen that names the reason in words. */
function app(): MemoryApp {
  return {
    screens: {
      form: {
        title: 'Place Account Hold',
        furniture: ["textbox 'REASON CODE'", "button 'F8=Review'"],
        text: 'REASON CODE . _ 1=LEGAL 2=FRAUD_REVIEW 3=GARNISHMENT 4=DECEASED 5=OTHER',
        elements: [
          { role: 'textbox', name: 'REASON CODE' },
          { role: 'button', name: 'F8=Review', on: { invoke: 'review' } },
        ],
      },
      review: {
        title: 'Hold Review',
        furniture: ["button 'F10=Post Hold'"],
        text: 'SHARE ID 400118-S0001 REASON LEGAL',
        elements: [{ role: 'button', name: 'F10=Post Hold', on: { invoke: 'posted' } }],
      },
      posted: { title: 'Hold Result', furniture: ["heading 'Hold Posted'"], text: 'HOLD POSTED 400118-S0001 LEGAL', elements: [] },
    },
  };
}

function cardInput(s: MemorySurface, reason: Record<string, unknown> = { type: 'enum', values: Object.keys(REASONS), map: REASONS }): CapabilityInput {
  const button = (name: string) => ({ role: 'button', name: { eq: name }, supports: ['invoke' as const], ladder: [{ rung: 'role_name' as const, cost: 100 }], fingerprint: { over: ['role' as const] } });
  return {
    schema: 'handrail.capability/v1',
    id: 'green_hold',
    intent: 'Place a hold for a reason given in words.',
    surface: 'browser',
    entry: 'memory://form',
    inputs: { share_id: { type: 'string' }, reason: reason as never },
    screens: { form: s.screenRecord('form'), review: s.screenRecord('review'), posted: s.screenRecord('posted') },
    targets: {
      reason_field: { role: 'textbox', name: { eq: 'REASON CODE' }, supports: ['set_value', 'read'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
      review_button: button('F8=Review'),
      post_button: button('F10=Post Hold'),
    },
    steps: [
      { id: 'enter_reason', screen: 'form', op: { verb: 'set_value', value: '{{input.reason}}' }, target: 'reason_field', effect: { kind: 'stage' } },
      { id: 'review', screen: 'form', op: { verb: 'invoke' }, target: 'review_button', effect: { kind: 'navigate' }, settle: { kind: 'screen_is', screen: 'review', timeout_ms: 2000, quiet_ms: 50 } },
      {
        id: 'post_hold',
        screen: 'review',
        op: { verb: 'invoke' },
        target: 'post_button',
        effect: { kind: 'commit', confirmed_by: { owner: 'o' } },
        // What is compared with the screen is the caller's word, never the code typed.
        pre: [{ kind: 'text', contains: '{{input.share_id}}' }, { kind: 'text', contains: 'REASON {{input.reason}}' }],
        settle: { kind: 'screen_is', screen: 'posted', timeout_ms: 2000, quiet_ms: 50 },
        expect: { screen_in: ['posted'] },
      },
    ],
    outcomes: { success: { screens: ['posted'] } },
    judge: { change: { before: { held: false }, after: { held: true, reason: '{{input.reason}}' } } },
    lifecycle: { state: 'verified' },
  };
}

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-valuemap-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('a value map on a card input', () => {
  it('loads when it maps each of the enum\'s words, and is refused otherwise, naming the input', () => {
    const s = new MemorySurface(app());
    expect(Capability.safeParse(cardInput(s)).success).toBe(true);
    const refused = (reason: Record<string, unknown>): string => {
      const r = Capability.safeParse(cardInput(s, reason));
      expect(r.success).toBe(false);
      return (r.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
    };
    expect(refused({ type: 'string', map: { LEGAL: '1' } })).toMatch(/inputs\.reason\.map: .*only an enum input/);
    expect(refused({ type: 'enum', values: ['LEGAL', 'OTHER'], map: { LEGAL: '1' } })).toMatch(/inputs\.reason\.map: .*"OTHER" has no entry/);
    expect(refused({ type: 'enum', values: ['LEGAL'], map: { LEGAL: '1', FRAUD: '2' } })).toMatch(/inputs\.reason\.map: .*"FRAUD" is not one of its values/);
    expect(refused({ type: 'enum', values: ['LEGAL'], secret: true, map: { LEGAL: '1' } })).toMatch(/inputs\.reason\.map: .*secret/);
  });

  it('the caller passes the word; an unknown word is INVALID_INPUT naming the input and every word it takes', () => {
    const card = Capability.parse(cardInput(new MemorySurface(app())));
    expect(validateInputs(card, { share_id: '400118-S0001', reason: 'LEGAL' })).toMatchObject({ ok: true, values: { reason: 'LEGAL' } });
    for (const wrong of ['1', 'legal', 'COURT']) {
      const r = validateInputs(card, { share_id: '400118-S0001', reason: wrong });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.problems).toEqual([{ input: 'reason', code: 'INVALID_INPUT', message: expect.stringContaining('"reason"') as string }]);
      expect(r.problems[0]?.message).toContain('LEGAL, FRAUD_REVIEW, GARNISHMENT, DECEASED, OTHER');
    }
    expect(typedInputs(card, { share_id: '400118-S0001', reason: 'GARNISHMENT' })).toEqual({ share_id: '400118-S0001', reason: '3' });
  });

  it('replay types the code the map gives, while the proof before the press compares the word on the screen', async () => {
    const s = new MemorySurface(app());
    const card = Capability.parse(cardInput(s));
    const masker = new Masker();
    const evidence = await Evidence.create(path.join(dir, 'ev'), masker, 'r1');
    try {
      const result = await new Replay({ card, inputs: { share_id: '400118-S0001', reason: 'LEGAL' }, entry: card.entry, runId: 'r1', masker, evidence, journal: null, quietMs: 50 }, s).run();
      expect([result.word, result.code], result.message).toEqual(['SUCCESS', 'OK']);
    } finally {
      await evidence.close();
    }
    expect(s.acts.filter((a) => a.verb === 'set_value').map((a) => a.value)).toEqual(['1']);
    expect(s.presses('F10=Post Hold')).toBe(1);
  });

  it('an unknown word is REFUSED before the surface is opened, so nothing is pressed', async () => {
    const card = Capability.parse(cardInput(new MemorySurface(app())));
    let opened = 0;
    const r = await runCapability({
      card,
      inputs: { share_id: '400118-S0001', reason: 'COURT' },
      env: {},
      allowUnapproved: true,
      surface: () => {
        opened++;
        return Promise.reject(new Error('never opened'));
      },
    });
    expect(r).toMatchObject({ word: 'REFUSED', code: 'INVALID_INPUT' });
    expect(r.message).toContain('reason');
    expect(r.message).toContain('LEGAL, FRAUD_REVIEW');
    expect(opened).toBe(0);
  });

  it('the MCP tool offers the words as an enum, never the codes', () => {
    const card = Capability.parse(cardInput(new MemorySurface(app())));
    const json = z.toJSONSchema(inputSchemaFor(card)) as { properties: Record<string, { enum?: string[] }> };
    expect(json.properties['reason']?.enum).toEqual(Object.keys(REASONS));
  });

  it('handrail show prints what each word types', () => {
    const card = Capability.parse(cardInput(new MemorySurface(app())));
    expect(showText(card)).toContain('reason  one of LEGAL, FRAUD_REVIEW, GARNISHMENT, DECEASED, OTHER (types LEGAL→1, FRAUD_REVIEW→2, GARNISHMENT→3, DECEASED→4, OTHER→5)');
    expect(showText(card)).toContain("Type the reason's code into textbox 'REASON CODE'");
  });
});
