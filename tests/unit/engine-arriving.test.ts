// A target the right screen does not show yet is waited for, bounded (docs/design/replay.md, "A target not there yet"):
// a list a search box filters after a debounce is the same screen before and after, so settling had nothing to wait
// for and the next step's target was TARGET_NOT_FOUND (Node-RED's explorer, tests/e2e/real-node-red.spec.ts).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CapabilityInput } from '../../shared/schema/capability.ts';
import { button, commitStep, memoryCard, replayInMemory } from '../fixtures/memory-cards.ts';
import { MemorySurface, type MemoryApp, type MemoryScreen } from '../fixtures/memory-surface.ts';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-arriving-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const FURNITURE = ['Flows', 'Palette', 'Debug', 'Info', 'Help', 'Nodes', 'Settings', 'Deploy options', 'Main menu', 'Zoom'].map((h) => `heading '${h}'`);

/** The explorer: typing in its search shows the filtered list `after` looks later (Infinity: never). */
function app(after: number): MemoryApp {
  const explorer = (withRow: boolean): MemoryScreen => ({
    title: 'Editor',
    furniture: FURNITURE,
    elements: [
      { role: 'textbox', name: 'Search flows', on: { set_value: { to: 'filtered', after } } },
      ...(withRow ? [{ role: 'button', name: 'Disable', on: { invoke: 'deployed' } }] : []),
    ],
  });
  return {
    screens: {
      explorer: explorer(false),
      filtered: explorer(true),
      deployed: { title: 'Deployed', text: 'Successfully deployed', elements: [] },
    },
  };
}

/** The evidence's resolve line for the commit step. */
function resolveOf(log: string): { ok?: boolean; waited_ms?: number } | undefined {
  type Line = { kind: string; data: { step?: string; ok?: boolean; waited_ms?: number } };
  return log.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line).find((l) => l.kind === 'resolve' && l.data.step === 'disable_node')?.data;
}

function card(s: MemorySurface): CapabilityInput {
  return memoryCard(s, {
    id: 'disable_node',
    entry: 'memory://explorer',
    screens: ['explorer', 'deployed'],
    success: ['deployed'],
    inputs: { node: { type: 'string', description: 'the node', secret: false } },
    targets: {
      search: { role: 'textbox', name: { eq: 'Search flows' }, supports: ['set_value'], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } },
      disable: button('Disable'),
    },
    steps: [
      { id: 'find_node', screen: 'explorer', op: { verb: 'set_value', value: '{{input.node}}' }, target: 'search', effect: { kind: 'stage' }, settle: { kind: 'screen_is', screen: 'explorer' } },
      commitStep('disable_node', 'explorer', 'disable', { settle: { kind: 'screen_is', screen: 'deployed' } }),
    ],
  });
}

describe('a target not there yet', () => {
  it('is found once the debounced list shows it, on the same screen, and pressed once', async () => {
    const s = new MemorySurface(app(4));
    const { result, log } = await replayInMemory(dir, s, card(s), { node: 'Poll orders' });
    expect(result, JSON.stringify(result)).toMatchObject({ word: 'SUCCESS' });
    expect(s.presses('Disable')).toBe(1);
    const resolve = resolveOf(log);
    expect(resolve).toMatchObject({ ok: true });
    expect(resolve?.waited_ms).toBeGreaterThanOrEqual(0);
  });

  it('that never comes is TARGET_NOT_FOUND once the screen has held still for the quiet time, with nothing pressed', async () => {
    const s = new MemorySurface(app(Infinity));
    const began = Date.now();
    const { result, log } = await replayInMemory(dir, s, card(s), { node: 'Poll orders' });
    expect(result, JSON.stringify(result)).toMatchObject({ word: 'FAILED', code: 'TARGET_NOT_FOUND', at_step: 'disable_node' });
    expect(s.presses('Disable')).toBe(0);
    // The quiet time (1 s by default) of a screen at rest bounds it, well inside the step's timeout (10 s).
    const waited = resolveOf(log)?.waited_ms ?? -1;
    expect(waited).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - began).toBeLessThan(8_000);
  });
});
