// Record mode's one rule of its own: a value the clerk typed or chose that equals an input's value is written as
// that input's blank ({{input.member_number}}), so the card works for other values and a secret never becomes a
// literal. Everything else about a clerk's action is the guard's business, exactly as for a model.
import { blankFor } from '../../shared/schema/blanks.ts';
import type { EveningInput } from '../../shared/author/ports.ts';
import type { ClerkAct } from './messages.ts';

/**
 * The value to hand the guard for a clerk's set_value/select/choose: a blank when it is an input's value. A key
 * pressed is the key's name (KEYS), never a blank.
 */
export function valueForGuard(act: Pick<ClerkAct, 'verb' | 'value' | 'optionValue'>, inputs: readonly EveningInput[]): string | undefined {
  if (act.verb === 'press') return act.value;
  if (act.verb !== 'set_value' && act.verb !== 'select' && act.verb !== 'choose') return undefined;
  const typed = act.value ?? '';
  const candidates = [typed.trim(), ...(act.optionValue !== undefined ? [act.optionValue.trim()] : [])];
  // Secrets first: a password that happens to equal another input must still never be written as a literal.
  const ordered = [...inputs.filter((i) => i.secret), ...inputs.filter((i) => !i.secret)];
  for (const i of ordered) {
    if (i.value !== '' && candidates.includes(i.value)) return blankFor(i.name);
  }
  return typed;
}

/** How the note on an action that sent a write nobody confirmed begins (the panel shows it as an error). */
export const UNASKED_NOTE = 'Unconfirmed change:';
