// A reviewer's postcondition as typed — on the command line (`handrail compile --post`) or in the extension's panel —
// made into the card's Postcondition by one function, so both write the same bytes for the same words
// (docs/design/replay.md, "Postconditions").
import { POST_ROLE, Postcondition } from '../schema/capability.ts';

/**
 * What a reviewer typed: text the screen shows once the commit worked, a control it offers (role and name), or the
 * words a row shows (`row`: `name` is the row's key, `text` the words).
 */
export interface PostWords {
  kind: 'text' | 'control' | 'row';
  text: string;
  role: string;
  name: string;
}

/**
 * The postcondition the words stand for, trimmed (screen text and names are compared trimmed), or what is wrong in
 * words a reviewer can act on.
 */
export function postconditionOf(w: PostWords): { ok: true; post: Postcondition } | { ok: false; problem: string } {
  if (w.kind === 'text') {
    const text = w.text.trim();
    if (!text) return { ok: false, problem: 'say what text the screen shows once it has worked, e.g. the added row\'s {{input.<name>}}' };
    return { ok: true, post: Postcondition.parse({ kind: 'text', contains: text }) };
  }
  if (w.kind === 'row') {
    const key = w.name.trim();
    if (!key) return { ok: false, problem: 'give the key of the row (what names it in its list, e.g. {{input.<name>}})' };
    const text = w.text.trim();
    if (!text) return { ok: false, problem: `say what the row ${key} shows once it has worked, e.g. {{input.<name>}}` };
    return { ok: true, post: Postcondition.parse({ kind: 'row', key, contains: text }) };
  }
  const role = w.role.trim();
  if (!POST_ROLE.test(role)) return { ok: false, problem: `give the control's role in lower-case letters (button, link, row, …), got "${role}"` };
  const name = w.name.trim();
  if (!name) return { ok: false, problem: `give the name of the ${role} the screen shows once it has worked, e.g. {{input.<name>}}` };
  return { ok: true, post: Postcondition.parse({ kind: 'control', role, name }) };
}
