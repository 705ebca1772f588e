// The extension presses keys, hovers, double-clicks, right-clicks and picks with trusted input: each KEYS name is the key events a browser sees and a person's keydown is named back the same; the surface asks the frame where, moves that point out of nested frames, sends the events (a double-click as clicks numbered 1 and 2; a pick by a path opens each submenu with a hover, a click or ArrowRight), and lets go of the tab when the session closes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clicksAt, ExtensionSurface, type TrustedEvent } from '../../extension/lib/surface.ts';
import { isKey, keyOfEvent, keyStrokes, MODIFIER_BITS } from '../../shared/keys.ts';
import { KEYS } from '../../shared/operations.ts';
import { Observation } from '../../shared/schema/observation.ts';
import { SurfaceError } from '../../shared/surface.ts';
import { fakeTab } from '../fixtures/extension/fake-tab.ts';

const MEMBER = Observation.parse(JSON.parse(readFileSync(new URL('../fixtures/plumbline-member.observation.json', import.meta.url), 'utf8')));

const noMods = { altKey: false, ctrlKey: false, metaKey: false, shiftKey: false };

describe('the keys press takes, as key events', () => {
  it.each(KEYS.map((k) => [k]))('%s goes down and up, modifiers around it, and a keydown of it is named %s again', (name) => {
    const strokes = keyStrokes(name);
    const main = strokes.filter((s) => !['Control', 'Meta', 'Shift', 'Alt'].includes(s.def.key));
    expect(main.map((s) => s.type)).toEqual(['keyDown', 'keyUp']);
    const mods = name.split('+').slice(0, -1);
    // Each modifier down before the key and up after it, with the key sent while all are held.
    expect(strokes).toHaveLength(2 + mods.length * 2);
    const held = mods.reduce((n, m) => n | MODIFIER_BITS[m as keyof typeof MODIFIER_BITS], 0);
    expect(main.every((s) => s.modifiers === held)).toBe(true);
    expect(strokes.at(-1)?.modifiers).toBe(0);
    const ev = { key: main[0]?.def.key ?? '', ...noMods, ctrlKey: mods.includes('Control'), metaKey: mods.includes('Meta'), shiftKey: mods.includes('Shift') };
    expect(keyOfEvent(ev)).toBe(name);
  });

  it('Enter types a line break and Space a space; a chord types nothing', () => {
    expect(keyStrokes('Enter')[0]?.def).toEqual({ key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' });
    expect(keyStrokes('Space')[0]?.def.text).toBe(' ');
    expect(keyStrokes('Control+Enter').find((s) => s.def.key === 'Enter')?.def.text).toBeUndefined();
  });

  it('a letter typed, an Alt chord or a key outside the set is no key press takes', () => {
    expect(keyOfEvent({ key: 'a', ...noMods })).toBeNull();
    expect(keyOfEvent({ key: 'Enter', ...noMods, altKey: true })).toBeNull();
    expect(keyOfEvent({ key: 'F5', ...noMods })).toBeNull();
    expect(keyOfEvent({ key: 'Tab', ...noMods, shiftKey: true })).toBe('Shift+Tab');
    expect(isKey('Enter')).toBe(true);
    expect(isKey('F5')).toBe(false);
  });
});

/** The mouse events of the trusted input sent, as `type@x,y#clickCount`. */
const mouse = (events: readonly TrustedEvent[]): string[] =>
  events.flatMap((e) => (e.kind === 'mouse' ? [`${e.type}@${e.x},${e.y}${e.clickCount !== undefined ? `#${e.clickCount}` : ''}`] : []));

describe('the extension surface, acting with trusted input', () => {
  async function opened() {
    const tab = fakeTab({ member: MEMBER }, 'member', {});
    const surface = new ExtensionSurface(tab);
    await surface.observe();
    return { tab, surface };
  }

  it('double_click: the frame says where (in its viewport), the point moves by the frame\'s origin, the pointer rests there, then two presses numbered 1 and 2', async () => {
    const { tab, surface } = await opened();
    await surface.act('work|c2', { verb: 'double_click' });
    // 10,20 in the frame `work`, whose content starts at 100,50 in the top document. The pointer is moved there
    // before the screen is looked at, so what a hover alone shows is not taken for the double-click's doing.
    expect(mouse(tab.inputs)).toEqual(['mouseMoved@110,70', ...mouse(clicksAt({ x: 110, y: 70 }, 2))]);
    expect(mouse(tab.inputs)).toEqual(['mouseMoved@110,70', 'mouseMoved@110,70', 'mousePressed@110,70#1', 'mouseReleased@110,70#1', 'mousePressed@110,70#2', 'mouseReleased@110,70#2']);
    expect(tab.acts).toEqual([
      { frame: 'work', ref: 'c2', verb: 'point:double_click:target' },
      { frame: 'work', ref: 'c2', verb: 'point:double_click:target' },
    ]);
  });

  it('context_menu: one press of the secondary button at the frame\'s point; no menu after 2 s fails by name, and nothing else is sent', async () => {
    const { tab, surface } = await opened();
    await surface.act('work|c2', { verb: 'context_menu' });
    expect(tab.inputs.filter((e) => e.kind === 'mouse' && e.type !== 'mouseMoved').map((e) => e.kind === 'mouse' && e.button)).toEqual(['right', 'right']);
    expect(mouse(tab.inputs)).toEqual(['mouseMoved@110,70', 'mouseMoved@110,70', 'mousePressed@110,70#1', 'mouseReleased@110,70#1']);
    // The same menu items showing before and after the second right-click: no menu appeared.
    tab.answers.menuItems = Array.from({ length: 200 }, () => ['menuitem Rename']);
    const sent = tab.inputs.length;
    const err = await surface.act('work|c2', { verb: 'context_menu' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ACTION_FAILED', message: 'context_menu on work|c2: no menu appeared' });
    // One hover and one right-click for the second act, no Escape and no other click after it.
    expect(tab.inputs.length - sent).toBe(4);
  });

  it('a double-click that changes nothing on the screen is asked about again, and fails by name after 2 s as on the runner', async () => {
    const { tab, surface } = await opened();
    tab.answers.screen = ['before', 'before', 'before', 'after'];
    await surface.act('work|c2', { verb: 'double_click' });
    expect(tab.answers.screen).toEqual([]);
    tab.answers.screen = Array.from({ length: 200 }, () => 'unchanged');
    const started = Date.now();
    const err = await surface.act('work|c2', { verb: 'double_click' }).catch((e: unknown) => e);
    expect((err as Error).message).toBe('double_click on work|c2: nothing on the screen changed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_000);
  });

  it('hover moves the pointer to the row without pressing; press focuses the control and sends only keys', async () => {
    const { tab, surface } = await opened();
    await surface.act('work|c0', { verb: 'hover' });
    expect(mouse(tab.inputs)).toEqual(['mouseMoved@110,70']);
    tab.inputs.length = 0;
    await surface.act('work|c0', { verb: 'press', value: 'Control+Enter' });
    expect(tab.inputs.every((e) => e.kind === 'key')).toBe(true);
    expect(tab.inputs.map((e) => (e.kind === 'key' ? `${e.stroke.type} ${e.stroke.def.key}` : ''))).toEqual(['keyDown Control', 'keyDown Enter', 'keyUp Enter', 'keyUp Control']);
  });

  it('choose opens the list (a click on the control), then clicks the option the frame found by name', async () => {
    const { tab, surface } = await opened();
    await surface.act('nav|c0', { verb: 'choose', value: 'Sam Okafor' });
    // `nav` is a top-level frame too: its origin moves both points.
    expect(mouse(tab.inputs)).toEqual(['mouseMoved@110,70', 'mousePressed@110,70#1', 'mouseReleased@110,70#1', 'mouseMoved@110,70', 'mousePressed@110,70#1', 'mouseReleased@110,70#1']);
    expect(tab.acts.map((a) => `${a.verb} ${a.value ?? ''}`.trim())).toEqual(['point:choose:target Sam Okafor', 'point:choose:option Sam Okafor']);
  });

  it('choose by a path opens each submenu as the page opens it: a hover first, a click if the hover did not, ArrowRight on the focused item if neither did', async () => {
    const { tab, surface } = await opened();
    tab.menu = { opensOn: ['hover', 'ArrowRight'], opened: 0, open: false, item: { x: 200, y: 30 } };
    await surface.act('nav|c0', { verb: 'choose', value: 'Export › Image › PNG' });
    expect(tab.menu.opened).toBe(2);
    const sent = tab.inputs.map((e) => (e.kind === 'key' ? `${e.stroke.type} ${e.stroke.def.key}` : e.kind === 'mouse' ? `${e.type}@${e.x},${e.y}` : `text ${e.text}`));
    expect(sent).toEqual([
      // The menu button, then Export hovered (its submenu opens on that), then Image: hovered, clicked, ArrowRight.
      ...['mouseMoved@110,70', 'mousePressed@110,70', 'mouseReleased@110,70'],
      'mouseMoved@300,80',
      ...['mouseMoved@300,80', 'mouseMoved@300,80', 'mousePressed@300,80', 'mouseReleased@300,80', 'keyDown ArrowRight', 'keyUp ArrowRight'],
      // The pick, in the submenu now showing.
      ...['mouseMoved@110,70', 'mousePressed@110,70', 'mouseReleased@110,70'],
    ]);
    expect(tab.acts.map((a) => a.verb)).toEqual([
      'point:choose:target',
      // Export's submenu opened on the hover; Image's on none of the hover and the click, each aimed afresh.
      'point:choose:submenu',
      'point:choose:submenu',
      'point:choose:submenu',
      'point:press:submenu',
      // A path of three names has two submenus on the way: none is asked for after those.
      'point:choose:option',
    ]);
  });

  it('a submenu that opens on none of the three fails naming its item, as on the runner; the pick is not clicked, and what opened is closed: Escape where the focus is, once per open level', async () => {
    const { tab, surface } = await opened();
    tab.menu = { opensOn: ['click', 'never'], opened: 0, open: false, item: { x: 200, y: 30 } };
    const err = await surface.act('nav|c0', { verb: 'choose', value: 'Export › Image › PNG' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'ACTION_FAILED', message: 'the submenu of "Level 1" did not open (hovered, clicked, ArrowRight)' });
    expect(tab.acts.map((a) => a.verb)).not.toContain('point:choose:option');
    expect(tab.inputs.filter((e) => e.kind === 'key' && e.stroke.type === 'keyDown').map((e) => e.kind === 'key' && e.stroke.def.key)).toEqual(['ArrowRight', 'Escape', 'Escape']);
    // The first Escape closed the open submenu and the focus went back into the menu; the second, where the focus
    // was again, closed the menu. No Escape went to the menu button itself (APG's ignores it; a dialog would not).
    expect(tab.acts.map((a) => a.verb)).not.toContain('point:press:target');
    expect(tab.menu).toMatchObject({ opened: 0, open: false });
  }, 15_000);

  it('a key outside the set is refused before anything is sent, by name', async () => {
    const { tab, surface } = await opened();
    const err = await surface.act('work|c0', { verb: 'press', value: 'F5' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SurfaceError);
    expect((err as SurfaceError).code).toBe('ACTION_FAILED');
    expect((err as Error).message).toContain('"F5" is not a key press takes');
    expect(tab.inputs).toEqual([]);
  });

  it('Chrome refusing the debugger (DevTools open, the clerk cancelled its bar) is a named action failure, and closing lets go of the tab', async () => {
    const { tab, surface } = await opened();
    tab.trusted.ready = () => Promise.reject(new Error('Another debugger is already attached to the tab'));
    const err = await surface.act('work|c0', { verb: 'hover' }).catch((e: unknown) => e);
    expect((err as SurfaceError).code).toBe('ACTION_FAILED');
    expect((err as Error).message).toBe('hover on work|c0: Another debugger is already attached to the tab');
    tab.attached = true;
    await surface.close();
    expect(tab.attached).toBe(false);
  });
});
