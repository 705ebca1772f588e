// A model sees one numbered row per legal action: the PLUMBLINE sign-on and member menus read exactly as reviewed.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MENU_BUTTON_NOTE, screenText } from '../../shared/author/prompt.ts';
import { buildMenu, MenuRow, renderMenu } from '../../shared/menu.ts';
import { Observation, type Control } from '../../shared/schema/observation.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);

async function fixture(name: string): Promise<{ obs: Observation; menu: string }> {
  const obs = Observation.parse(JSON.parse(await readFile(new URL(`plumbline-${name}.observation.json`, FIXTURES), 'utf8')));
  const menu = await readFile(new URL(`plumbline-${name}.menu.txt`, FIXTURES), 'utf8');
  return { obs, menu };
}

function control(over: Partial<Control>): Control {
  return { ref: '|c0', role: 'button', name: 'OK', verbs: ['invoke'], scope: [], ancestors: [], ...over };
}

function menuOf(controls: Control[]): string {
  return renderMenu(buildMenu({ parts: [{ part: [], locus: { url: 'u', title: 't' }, controls, paths: [], text: '' }] }));
}

describe('menu', () => {
  it.each(['signon', 'member'])('renders the PLUMBLINE %s screen as its golden file', async (name) => {
    const { obs, menu } = await fixture(name);
    const rows = buildMenu(obs);
    for (const r of rows) MenuRow.parse(r);
    expect(`${renderMenu(rows)}\n`).toBe(menu);
  });

  it('shows unnamed fields by their visual label, drops disabled controls and read rows', async () => {
    const { obs } = await fixture('signon');
    const text = renderMenu(buildMenu(obs));
    expect(text).toContain("1: set_value textbox 'Operator ID'");
    expect(text).not.toContain('F1=Index');
    expect(text).not.toMatch(/: read /);
  });

  it('adds the innermost scope that tells namesakes apart, the frame only when needed, an ordinal as a last resort', () => {
    const text = menuOf([
      control({ ref: '|c0', role: 'link', name: 'Hold', scope: [{ role: 'table', name: 'Shares' }, { role: 'row', name: 'A-1' }] }),
      control({ ref: '|c1', role: 'link', name: 'Hold', scope: [{ role: 'table', name: 'Shares' }, { role: 'row', name: 'A-2' }] }),
      control({ ref: 'x|c0', name: 'OK', scope: [{ role: 'frame', name: 'x' }] }),
      control({ ref: 'y|c0', name: 'OK', scope: [{ role: 'frame', name: 'y' }] }),
      control({ ref: '|c2', name: 'Go' }),
      control({ ref: '|c3', name: 'Go' }),
      control({ ref: '|c4', name: "Don't" }),
    ]);
    expect(text).toBe([
      "1: invoke link 'Hold' in row 'A-1'",
      "2: invoke link 'Hold' in row 'A-2'",
      "3: invoke button 'OK' in frame 'x'",
      "4: invoke button 'OK' in frame 'y'",
      "5: invoke button 'Go' (1 of 2)",
      "6: invoke button 'Go' (2 of 2)",
      "7: invoke button 'Don\\'t'",
    ].join('\n'));
  });

  it('gives a toggle row and a select row their own verbs', () => {
    const text = menuOf([
      control({ role: 'checkbox', name: 'Remember me', verbs: ['toggle', 'read'] }),
      control({ role: 'combobox', name: '', hint: 'Reason', verbs: ['select', 'read'] }),
    ]);
    expect(text).toBe("1: toggle checkbox 'Remember me'\n2: select combobox 'Reason'");
  });

  it('says how choose on a menu button reads only on a screen that has one', () => {
    const screen = (controls: Control[]): string => {
      const obs = { parts: [{ part: [], locus: { url: 'u', title: 't' }, controls, paths: [], text: '' }] };
      return screenText(obs, buildMenu(obs), 'menus', (x) => x);
    };
    const withMenu = screen([control({ name: 'More', offers: ['choose'] })]);
    expect(withMenu).toContain("2: choose button 'More'");
    expect(withMenu).toContain(MENU_BUTTON_NOTE);
    // A combobox's choose is no menu button's; a screen with neither pays nothing.
    expect(screen([control({ role: 'combobox', name: 'Assignee', verbs: ['choose'] })])).not.toContain(MENU_BUTTON_NOTE);
    expect(screen([control({})])).not.toContain(MENU_BUTTON_NOTE);
  });

  it('shows what a button that opens a listbox holds beside its name, which leaves it out; no other control gains it', () => {
    const text = menuOf([
      control({ name: 'Queue', value: 'Claims', offers: ['choose'] }),
      control({ name: 'More', offers: ['choose'] }),
      control({ role: 'combobox', name: 'Priority', value: 'Normal', verbs: ['choose', 'read'] }),
    ]);
    expect(text).toBe(
      "1: invoke button 'Queue' (holds 'Claims')\n2: invoke button 'More'\n3: choose combobox 'Priority'\n" +
        "4: press combobox 'Priority'\n5: choose button 'Queue' (holds 'Claims')\n6: choose button 'More'",
    );
  });
});
