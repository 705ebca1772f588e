// The semantic diff a reviewer reads: commits first, furniture as paths gone and come, and the real command's exit.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardDiff, diffText } from '../../runner/diff.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { handrail } from '../e2e/support/cli.ts';

const FILE = 'capabilities/plumbline-place-hold.json';
let raw: Record<string, unknown>;
let tmp: string;
beforeAll(async () => {
  raw = JSON.parse(await readFile(FILE, 'utf8')) as Record<string, unknown>;
  tmp = await mkdtemp(join(tmpdir(), 'handrail-diff-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

const edited = (edit: (c: Capability) => void): Capability => {
  const c = Capability.parse(structuredClone(raw));
  edit(c);
  return c;
};

describe('cardDiff', () => {
  it('finds nothing between a card and itself', () => {
    const c = Capability.parse(structuredClone(raw));
    expect(cardDiff(c, c)).toEqual([]);
  });

  it('puts a step that became a commit first, and shows furniture as paths gone and come', () => {
    const a = Capability.parse(structuredClone(raw));
    const b = edited((c) => {
      const search = c.steps.find((s) => s.id === 'search');
      if (search) Object.assign(search, { effect: { kind: 'commit', confirmed_by: { owner: 'Riley' } }, no_record: true });
      const result = c.screens['hold_result'];
      if (result) {
        result.paths = [...result.paths.filter((p) => !p.includes('HOLD POSTED')), "work>strong 'HOLD ACCEPTED REF HX-#'"];
        result.signature = 'feedfacefeedface';
      }
    });
    const changes = cardDiff(a, b);
    expect(changes.find((c) => c.area === 'steps')).toMatchObject({ key: 'search', serious: true, detail: expect.stringContaining('→ commit') as unknown });
    const furniture = changes.find((c) => c.area === 'screens');
    expect(furniture?.detail).toContain("- work>strong 'HOLD POSTED CONFIRMATION HX-#'");
    expect(furniture?.detail).toContain("+ work>strong 'HOLD ACCEPTED REF HX-#'");
    expect(diffText(a, b, changes).split('\n')[1]).toMatch(/^! step search effect/);
  });

  it('calls a secret flag flipped serious', () => {
    const a = Capability.parse(structuredClone(raw));
    const b = edited((c) => {
      const pw = c.inputs['password'];
      if (pw) pw.secret = false;
    });
    expect(cardDiff(a, b)).toEqual([expect.objectContaining({ area: 'inputs', key: 'password', serious: true })]);
  });
});

describe('handrail diff', () => {
  it('exits 0 for no change, 1 for a change, 2 for a card that does not load', async () => {
    const other = join(tmp, 'other.json');
    const c = structuredClone(raw) as { screens: Record<string, { title: string }> };
    if (c.screens['hold_result']) c.screens['hold_result'].title = 'Hold Outcome';
    await writeFile(other, JSON.stringify(c));
    expect((await handrail(['diff', FILE, FILE], process.env)).code).toBe(0);
    const changed = await handrail(['diff', FILE, other], process.env);
    expect(changed.code).toBe(1);
    expect(changed.stdout).toContain('screen hold_result title: "Hold Result" → "Hold Outcome"');
    expect((await handrail(['diff', FILE, join(tmp, 'missing.json')], process.env)).code).toBe(2);
  });
});
