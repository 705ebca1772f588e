// The walker query a target's rung becomes says what the target takes: a hover target is found while hidden, a target that takes a double-click or a right-click is looked for among gesture-offered text, and a plain read target is neither.
import { describe, expect, it } from 'vitest';
import { rungQuery } from '../../shared/ladder.ts';
import type { BoundTarget } from '../../shared/surface.ts';

const rung: BoundTarget['ladder'][number] = { rung: 'text', cost: 300, value: 'Hold posted' };

function target(role: string, supports: BoundTarget['supports']): BoundTarget {
  return { id: 't', role, supports, scope: [], ladder: [rung], fingerprint: { over: ['role'] } };
}

describe('rungQuery', () => {
  it('a read target of role text (a result line) asks for neither a gesture nor a reveal', () => {
    const q = rungQuery(target('text', ['read']), rung, []);
    expect(q).toEqual({ rung: 'text', role: 'text', scope: [], value: 'Hold posted' });
  });

  it.each([
    [['read', 'double_click']],
    [['read', 'context_menu']],
  ] as const)('a target that supports %j asks for the gesture-offered text', (supports) => {
    const q = rungQuery(target('text', [...supports]), rung, []);
    expect(q.gesture).toBe(true);
    expect(q.reveal).toBeUndefined();
  });

  it('a hover target is found while hidden, and takes no gesture', () => {
    const q = rungQuery(target('button', ['hover']), { rung: 'role_name', cost: 100 }, []);
    expect(q.reveal).toBe(true);
    expect(q.gesture).toBeUndefined();
  });
});
