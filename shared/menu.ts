// The numbered menu a model chooses from: one row per legal action on the current screen (docs/design/verbs.md, "The menu").
// Verbs the operations table keeps off the menu (`read`: the prompt already carries the screen text, and a menu
// twice as long costs attention for nothing) are left off. Disabled controls are left off: they are not legal actions.
import { z } from 'zod';
import { VERBS, verbsOf } from './operations.ts';
import { Control, Verb, type Observation, type ScopeLink } from './schema/observation.ts';

export const MenuRow = z.strictObject({
  n: z.number().int().positive(),
  verb: Verb,
  control: Control,
  /** The scope words that tell this row apart from another with the same role and label ('' when unique). */
  where: z.string(),
});
export type MenuRow = z.infer<typeof MenuRow>;

/** What a person reads as the control's label: its accessible name, else its visual label (hint). */
export function labelOf(c: Control): string {
  return c.name || c.hint || '';
}

/**
 * The label a menu row shows. A field's visual label (the cell beside it) is its label; but an unnamed button or
 * link is offered as unnamed — the text near it is often the row's data ("Buy milk" before a delete icon), not
 * its name — with that hint shown apart, and told from its namesakes by its row, group or region.
 */
export function menuLabel(c: Control): string {
  return c.name || (c.verbs.includes('invoke') ? '' : c.hint || '');
}

/**
 * What a button that opens a listbox holds, shown beside its name: its name leaves out the value it holds now, so a
 * card is not bound to it (docs/design/walker.md, "The walker", "One deliberate difference"), and the model and the owner read it here.
 */
export function heldPart(c: Control): string {
  return c.role === 'button' && c.value && verbsOf(c.verbs, c.offers).includes('choose') ? ` (holds ${quote(c.value)})` : '';
}

function hintPart(c: Control): string {
  return !c.name && c.hint && c.verbs.includes('invoke') ? ` (hint ${quote(c.hint)})` : '';
}

function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** `row '400118-S0001'`, or with the column a row's key is read from, `row SHARE ID '400118-S0001'`. */
function linkText(l: ScopeLink): string {
  return `${l.role}${l.column ? ` ${l.column}` : ''} ${quote(l.name)}`;
}

function sameLinks(a: readonly ScopeLink[], b: readonly ScopeLink[]): boolean {
  return a.length === b.length && a.every((l, i) => l.role === b[i]?.role && l.name === b[i]?.name);
}

/**
 * The fewest scope links that tell `c` apart from its namesakes: the innermost in-frame links first (a row says
 * most), the frame only when the frame itself is what differs, an ordinal when nothing on the page differs.
 */
function disambiguate(c: Control, namesakes: readonly Control[]): string {
  const inner = (x: Control) => x.scope.filter((l) => l.role !== 'frame');
  const frame = (x: Control) => x.scope.filter((l) => l.role === 'frame');
  const others = namesakes.filter((o) => o !== c);
  const mine = inner(c);
  for (let k = 1; k <= mine.length; k++) {
    const suffix = mine.slice(-k);
    if (!others.some((o) => sameLinks(inner(o).slice(-k), suffix))) return suffix.map(linkText).join(' > ');
  }
  const full = [...frame(c), ...mine];
  if (!others.some((o) => sameLinks([...frame(o), ...inner(o)], full)) && full.length) return full.map(linkText).join(' > ');
  const twins = namesakes.filter((o) => sameLinks(o.scope, c.scope));
  const at = twins.indexOf(c) + 1;
  const base = full.length ? `${full.map(linkText).join(' > ')} ` : '';
  return `${base}(${at} of ${twins.length})`.trim();
}

export function buildMenu(obs: Pick<Observation, 'parts'>): MenuRow[] {
  const controls = obs.parts.flatMap((f) => f.controls).filter((c) => !c.disabled);
  const byKey = new Map<string, Control[]>();
  for (const c of controls) {
    const key = `${c.role}\u0000${menuLabel(c)}`;
    const list = byKey.get(key);
    if (list) list.push(c);
    else byKey.set(key, [c]);
  }
  const rows: MenuRow[] = [];
  const extra: Omit<MenuRow, 'n'>[] = [];
  const gestures: Omit<MenuRow, 'n'>[] = [];
  for (const c of controls) {
    const namesakes = byKey.get(`${c.role}\u0000${menuLabel(c)}`) ?? [c];
    const where = namesakes.length > 1 ? disambiguate(c, namesakes) : '';
    for (const verb of verbsOf(c.verbs, c.offers)) {
      if (!VERBS[verb].menu) continue;
      if (c.verbs.includes(verb)) rows.push({ n: rows.length + 1, verb, control: c, where });
      else (c.offers?.includes(verb) ? gestures : extra).push({ verb, control: c, where });
    }
  }
  // The verbs the table offers with a control's own (a key in a field) come last, and after them the gestures a
  // page listens for (shared/dom/gestures.ts): the rows a screen always had keep their numbers.
  for (const r of [...extra, ...gestures]) rows.push({ n: rows.length + 1, ...r });
  return rows;
}

/** `7: invoke button 'F5=Sign On'`, `12: invoke link 'Hold' in row '400118-S0001'`,
 *  `9: invoke button '' (hint 'Buy milk') in row 'Buy milk'`, `4: choose button 'Queue' (holds 'Claims')`, one row a line. */
export function renderRow(r: MenuRow): string {
  const where = r.where ? (r.where.startsWith('(') ? ` ${r.where}` : ` in ${r.where}`) : '';
  return `${r.n}: ${r.verb} ${r.control.role} ${quote(menuLabel(r.control))}${hintPart(r.control)}${heldPart(r.control)}${where}`;
}

export function renderMenu(rows: readonly MenuRow[]): string {
  return rows.map(renderRow).join('\n');
}
