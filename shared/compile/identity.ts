// Identity before the press (docs/design/replay.md, "The right record"): the precondition a commit gets from the inputs
// that chose its record on the way — an input's blank in a control's name or row scope (the member's link, the share's
// row, the case's row), or in a record path of the commit's own screen. The engine checks it on the last look before
// the press; a commit no input chose gets none, and the compiler asks the reviewer (NO_RECORD_IDENTITY).
import { blanksIn } from '../schema/blanks.ts';
import type { Precondition, Target } from '../schema/capability.ts';

export interface RecordFacts {
  /** The book's non-secret inputs, in declaration order (a secret never chooses nor proves a record). */
  inputs: readonly string[];
  /** The commit's own target. */
  target: Target | undefined;
  /** The targets of the steps before the commit, in order. */
  before: readonly (Target | undefined)[];
  /** The commit screen's record paths (templates ending with an input's blank). */
  recordPaths: readonly string[];
}

/** The inputs whose blanks stand in a target's name, hint, scope or rungs: the ones that chose it. */
function choosers(t: Target | undefined): string[] {
  if (!t) return [];
  const texts = [t.name?.eq ?? '', t.hint ?? '', ...t.scope.map((l) => l.name), ...t.ladder.map((r) => r.value ?? '')];
  return texts.flatMap((x) => blanksIn(x).filter((b) => b.source === 'input').map((b) => b.name));
}

/**
 * The commit's preconditions: its own control by role, name and scope when an input names it there (the row a Delete
 * sits in), and for each other input that chose the record, its value in the screen's text. Empty: no input chose it.
 */
export function recordProof(f: RecordFacts): Precondition[] {
  const pre: Precondition[] = [];
  const own = new Set(choosers(f.target));
  const t = f.target;
  if (t && own.size && t.name?.eq) {
    pre.push({ kind: 'control', role: t.role, name: t.name.eq, ...(t.scope.length ? { scope: t.scope.map((l) => ({ ...l })) } : {}) });
  } else {
    own.clear();
  }
  const chosen = new Set([...f.before.flatMap(choosers), ...f.recordPaths.flatMap((p) => blanksIn(p).filter((b) => b.source === 'input').map((b) => b.name))]);
  for (const name of f.inputs) {
    if (chosen.has(name) && !own.has(name)) pre.push({ kind: 'text', contains: `{{input.${name}}}` });
  }
  return pre;
}
