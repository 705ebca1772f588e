// What the model is shown: the goal and the inputs by name (once, as the system text), then on each turn the
// current screen as its label, the numbered menu and the visible text. The menu is the only way to act, so the
// prompt stays compact: the tokens a turn costs are a reported figure (≈ characters / 4).
import { blankFor } from '../schema/blanks.ts';
import type { Observation } from '../schema/observation.ts';
import { renderMenu, type MenuRow } from '../menu.ts';
import { MENU_PATH } from '../menu-path.ts';
import type { EveningInput } from './ports.ts';
import { KEYS, takesValue, VERBS } from '../operations.ts';
import { Verb } from '../schema/observation.ts';
import { renderRowSources, type RowSource } from './rows.ts';

/** The verbs the menu offers and those that take a value: the operations table's, never a list of its own. */
const MENU_VERBS = Verb.options.filter((v) => VERBS[v].menu);
const VALUE_VERBS = MENU_VERBS.filter(takesValue);

/** Visible text beyond this is cut: the menu already lists every legal action, the text is for reading. */
export const MAX_SCREEN_TEXT = 1500;

/** Tool declarations as data (JSON Schema inputs), read by every model adapter and the fake API server. */
export const TOOLS = [
  {
    name: 'act',
    description:
      'Do one row of the current screen\'s menu, with that row\'s verb. set_value/select/choose take a value: an input\'s blank ' +
      '({{input.member_number}}) or a literal that is no input\'s value; press takes a key. hover reveals the control it names.',
    input_schema: {
      type: 'object',
      properties: {
        row: { type: 'integer', minimum: 1, description: 'The menu row number.' },
        verb: { type: 'string', enum: MENU_VERBS, description: "The row's own verb." },
        value: { type: 'string', description: `Only for ${VALUE_VERBS.join(', ')}; press: one of ${KEYS.join(', ')}.` },
      },
      required: ['row', 'verb'],
      additionalProperties: false,
    },
  },
  {
    name: 'assert_screen',
    description: 'Name the screen showing now: a lower_snake_case label and a short title. Name each new screen before acting on it.',
    input_schema: {
      type: 'object',
      properties: {
        label: { type: 'string', pattern: '^[a-z][a-z0-9_]*$' },
        title: { type: 'string' },
      },
      required: ['label'],
      additionalProperties: false,
    },
  },
  {
    name: 'read_rows',
    description: 'Return a table listed under Rows as output: columns {name: header}; text: a column for each row\'s whole text.',
    input_schema: {
      type: 'object',
      properties: {
        table: { type: 'string' },
        output: { type: 'string' },
        columns: { type: 'object', additionalProperties: { type: 'string' } },
        text: { type: 'string' },
      },
      required: ['table', 'output'],
      additionalProperties: false,
    },
  },
  {
    name: 'finish',
    description: 'End the task: name the labelled screen, showing now, on which the goal is done.',
    input_schema: {
      type: 'object',
      properties: { label: { type: 'string' } },
      required: ['label'],
      additionalProperties: false,
    },
  },
] as const;

export function systemText(goal: string, inputs: readonly EveningInput[]): string {
  const lines = inputs.map((i) =>
    i.secret
      ? `- ${i.name} (secret): ${blankFor(i.name)}`
      : `- ${i.name} = ${JSON.stringify(i.value)}: ${blankFor(i.name)}`,
  );
  return [
    'You operate an application through a numbered menu of legal actions. You cannot click anything else.',
    `Goal: ${goal}`,
    'Inputs (type each as its blank, never as its value):',
    ...(lines.length ? lines : ['- (none)']),
    'Calls in one message run in order, against the screen you were shown; after a call changes the screen, the rest are refused.',
    'End with finish(label) on the labelled screen where the goal is done.',
  ].join('\n');
}

export function screenText(
  obs: Pick<Observation, 'parts'>,
  menu: readonly MenuRow[],
  label: string | null,
  mask: (s: string) => string,
  /** Tables and lists `read_rows` can read here (shared/author/rows.ts); the section is left out when there are none. */
  rows: readonly RowSource[] = [],
): string {
  let text = obs.parts
    .map((f) => f.text)
    .filter(Boolean)
    .join(' | ');
  if (text.length > MAX_SCREEN_TEXT) text = `${text.slice(0, MAX_SCREEN_TEXT)}…`;
  const said = obs.parts.flatMap((f) => f.said ?? []);
  return mask(
    [
      `Screen: ${label ?? '(not labelled yet)'}`,
      'Menu:',
      menu.length ? renderMenu(menu) : '(no actions)',
      // Said only on a screen that has one, so other screens pay nothing for it.
      ...(menu.some((r) => r.verb === 'choose' && r.control.role === 'button') ? [MENU_BUTTON_NOTE] : []),
      ...(rows.length ? ['Rows (read_rows):', renderRowSources(rows)] : []),
      `Text: ${text}`,
      // What the app says (a toast, an alert) apart from the screen's text, only where it says something.
      ...(said.length ? [`The app says: ${said.map((w) => JSON.stringify(w)).join(' ')}`] : []),
    ].join('\n'),
  );
}

/** How `choose` on a menu button reads (docs/design/verbs.md, "The six verbs"): one step, not the button then the item. */
export const MENU_BUTTON_NOTE = `(choose on a button: value = its menu item's name, in a submenu "Export${MENU_PATH}PDF"; one step, not the button then the item)`;

/** The figure we report: tokens ≈ characters / 4 (the usual rule of thumb for English and code). */
export function approxTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
