// The keys `press` takes (KEYS in shared/operations.ts) as the key events a browser sees, both ways: what a key
// name sends (the extension presses it with trusted input through the DevTools protocol's Input.dispatchKeyEvent),
// and which key name a person's keydown is (the extension's recorder). docs/design/extension.md, "The extension's
// trusted input". Values follow UI Events KeyboardEvent `key` and `code` (https://www.w3.org/TR/uievents-key/,
// https://www.w3.org/TR/uievents-code/) and the Windows virtual-key codes Chromium reads from `windowsVirtualKeyCode`.
import { KEYS } from './operations.ts';

export type Key = (typeof KEYS)[number];

export function isKey(s: string): s is Key {
  return (KEYS as readonly string[]).includes(s);
}

/** One key as the browser sees it: `key`, `code`, the virtual-key code, and the text it types, if any. */
export interface KeyDef {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

/** The modifier bits of the DevTools protocol's `modifiers` (Alt=1, Ctrl=2, Meta=4, Shift=8). */
export const MODIFIER_BITS = { Alt: 1, Control: 2, Meta: 4, Shift: 8 } as const;
export type Modifier = keyof typeof MODIFIER_BITS;

const MODIFIER_DEFS: Record<Modifier, KeyDef> = {
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16 },
};

/** Every key a KEYS entry ends in; a chord's last part is one of these. */
const BASE: Record<string, KeyDef> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  a: { key: 'a', code: 'KeyA', keyCode: 65, text: 'a' },
};

/** One key event to send: down or up, the key, and the modifiers held while it is sent. */
export interface KeyStroke {
  type: 'keyDown' | 'keyUp';
  def: KeyDef;
  modifiers: number;
}

function parse(name: Key): { mods: Modifier[]; base: KeyDef } {
  const parts = name.split('+');
  const last = parts.pop() as string;
  const base = BASE[last];
  if (!base) throw new Error(`no key definition for ${name}`);
  return { mods: parts as Modifier[], base };
}

/**
 * The key events pressing `name` sends, as Playwright's `keyboard.press` sends them: each modifier down, the key
 * down and up with the modifiers held, the modifiers up in reverse order. A modified key types no text (Ctrl+Enter
 * is a command, not a line break).
 */
export function keyStrokes(name: Key): KeyStroke[] {
  const { mods, base } = parse(name);
  const out: KeyStroke[] = [];
  let held = 0;
  for (const m of mods) {
    held |= MODIFIER_BITS[m];
    out.push({ type: 'keyDown', def: MODIFIER_DEFS[m], modifiers: held });
  }
  const def: KeyDef = held && held !== MODIFIER_BITS.Shift ? { key: base.key, code: base.code, keyCode: base.keyCode } : base;
  out.push({ type: 'keyDown', def, modifiers: held }, { type: 'keyUp', def, modifiers: held });
  for (const m of [...mods].reverse()) {
    held &= ~MODIFIER_BITS[m];
    out.push({ type: 'keyUp', def: MODIFIER_DEFS[m], modifiers: held });
  }
  return out;
}

/** What a keydown event says about itself (KeyboardEvent's fields). */
export interface KeyEventLike {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

/** The KEYS name of a keydown, or null when it is no key `press` takes (a letter typed, an Alt chord). */
export function keyOfEvent(e: KeyEventLike): Key | null {
  const base = Object.entries(BASE).find(([, d]) => d.key === e.key)?.[0];
  if (base === undefined) return null;
  const mods = [e.ctrlKey ? 'Control' : '', e.metaKey ? 'Meta' : '', e.altKey ? 'Alt' : '', e.shiftKey ? 'Shift' : ''].filter(Boolean);
  const name = [...mods, base].join('+');
  return isKey(name) ? name : null;
}
