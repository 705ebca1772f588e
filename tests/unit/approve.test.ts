// A reviewer signs a verified card by name and the signature is bound to its content: drafts, unconfirmed commits and edited cards are refused, and an edit after signing takes the card off the menu.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { approvalStatus, contentHash } from '../../runner/approval.ts';
import { approve, approveCommand, EXIT_NOT_APPROVABLE } from '../../runner/cli/approve.ts';
import { Capability, type CapabilityInput } from '../../shared/schema/index.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

const parse = (c: CapabilityInput): Capability => Capability.parse(c);
const NOW = new Date('2026-11-30T12:00:00.000Z');

describe('approve (the decision)', () => {
  it('signs a verified card with the person, the time and the content hash', () => {
    const card = parse(minimalCard());
    const d = approve(card, '  Dana Reviewer ', NOW);
    expect(d).toEqual({
      ok: true,
      lifecycle: { ...card.lifecycle, state: 'approved', approval: { by: 'Dana Reviewer', at: NOW.toISOString(), content_hash: contentHash(card) } },
    });
  });

  it('refuses a draft', () => {
    expect(approve(parse({ ...minimalCard(), lifecycle: { state: 'draft' } }), 'Dana')).toMatchObject({ ok: false, code: 'NOT_VERIFIED' });
  });

  it('refuses a card whose commit no owner confirmed, naming the step', () => {
    const c = minimalCard();
    c.lifecycle = { state: 'draft' };
    c.steps = c.steps.map((s) => (s.id === 'post' ? { ...s, effect: { kind: 'commit' as const } } : s));
    const d = approve(parse(c), 'Dana');
    expect(d).toMatchObject({ ok: false, code: 'COMMIT_UNCONFIRMED' });
    expect(!d.ok && d.reason).toContain('commit step post was never confirmed');
  });

  it('refuses a nameless approval', () => {
    expect(approve(parse(minimalCard()), '   ')).toMatchObject({ ok: false, code: 'NO_APPROVER' });
  });

  it('refuses an approved card that was edited since, and one already approved', () => {
    const card = parse(minimalCard());
    const d = approve(card, 'Dana', NOW);
    if (!d.ok) throw new Error(d.reason);
    const signed = parse({ ...minimalCard(), lifecycle: d.lifecycle });
    expect(approvalStatus(signed)).toMatchObject({ servable: true, by: 'Dana' });
    expect(approve(signed, 'Dana')).toMatchObject({ ok: false, code: 'ALREADY_APPROVED' });
    const edited = parse({ ...minimalCard(), intent: 'Something else.', lifecycle: d.lifecycle });
    expect(approvalStatus(edited)).toMatchObject({ servable: false, state: 'edited_after_approval' });
    expect(approve(edited, 'Dana')).toMatchObject({ ok: false, code: 'EDITED_AFTER_APPROVAL' });
  });
});

describe('approveCommand (the file)', () => {
  let dir: string;
  let out: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'handrail-approve-'));
    out = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => ((out += String(s)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the approval into the lifecycle, keeping the rest of the file and its key order', async () => {
    const file = join(dir, 'card.json');
    const before = JSON.stringify(minimalCard(), null, 2);
    await writeFile(file, before);
    expect(await approveCommand(file, { by: 'Dana Reviewer' })).toBe(0);
    const text = await readFile(file, 'utf8');
    const raw = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(raw)).toEqual(Object.keys(minimalCard()));
    expect(Object.keys(raw['lifecycle'] as object)).toEqual(['state', 'reliability', 'approval', 'review_notes']);
    expect(text.endsWith('}\n')).toBe(true);
    expect(JSON.stringify({ ...raw, lifecycle: null }, null, 2)).toBe(JSON.stringify({ ...(JSON.parse(before) as object), lifecycle: null }, null, 2));
    const card = parse(raw as CapabilityInput);
    expect(approvalStatus(card)).toEqual({ servable: true, state: 'approved', by: 'Dana Reviewer' });
    expect(JSON.parse(out)).toMatchObject({ approved: true, approval: { by: 'Dana Reviewer', content_hash: contentHash(card) } });
  });

  it('refuses a draft with exit 3 and leaves the file alone', async () => {
    const file = join(dir, 'card.json');
    const text = JSON.stringify({ ...minimalCard(), lifecycle: { state: 'draft' } }, null, 2);
    await writeFile(file, text);
    expect(await approveCommand(file, { by: 'Dana' })).toBe(EXIT_NOT_APPROVABLE);
    expect(await readFile(file, 'utf8')).toBe(text);
    expect(JSON.parse(out)).toMatchObject({ approved: false, code: 'NOT_VERIFIED' });
  });
});
