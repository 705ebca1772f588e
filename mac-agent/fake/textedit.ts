// The fake's TextEdit (docs/design/mac.md, "The mac surface"): an AX tree transcribed by hand from how TextEdit
// on macOS 13–14 presents itself to Accessibility Inspector — the menu bar (File > Save…), one document window with
// its format bar and text area, and the Save sheet (an unnamed name field labelled by its AXTitleUIElement
// "Save As:", Tags, Where, File Format, Cancel, Save). It was not captured by the helper: these machines have no
// Mac. It behaves as AX does where that matters to a client: actions only if listed, values only if settable,
// refs of destroyed elements go stale, a press on a disabled button succeeds and does nothing, and notifications
// follow each change. The expanded Save panel is constructed (not transcribed) to put two fields titled "Save As:"
// and several unnamed ones on one sheet: the shape that makes a name-only target ambiguous.
import type { AxNode, AxNotification, SavedFile } from '../protocol.ts';

/** One element of the recording, keyed stably so a ref survives snapshots until the element is destroyed. */
interface El {
  key: string;
  role: string;
  subrole?: string;
  title?: string;
  description?: string;
  value?: string;
  identifier?: string;
  placeholder?: string;
  roleDescription?: string;
  /** Key of the static text that titles this element (AXTitleUIElement). */
  titleKey?: string;
  document?: string;
  enabled?: boolean;
  settable?: string[];
  actions?: string[];
  children?: El[];
}

export type AxFailure = 'stale_ref' | 'action_not_listed' | 'not_settable';

export class AxFault extends Error {
  constructor(
    readonly code: AxFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface Emitted {
  notification: AxNotification;
  ref?: string;
}

const PRESS = ['AXPress', 'AXCancel'];
const FORMATS = ['Rich Text Document', 'Web Page (.html)', 'Word 2007 Document', 'OpenDocument Text'];
const EXTENSION: Record<string, string> = { 'Rich Text Document': 'rtf', 'Web Page (.html)': 'html', 'Word 2007 Document': 'docx', 'OpenDocument Text': 'odt' };
const MENUS: Record<string, { title: string; enabled?: boolean }[]> = {
  Apple: [{ title: 'About This Mac' }, { title: 'System Settings…' }],
  TextEdit: [{ title: 'About TextEdit' }, { title: 'Settings…' }, { title: 'Hide TextEdit' }, { title: 'Quit TextEdit' }],
  File: [
    { title: 'New' },
    { title: 'Open…' },
    { title: 'Close' },
    { title: 'Save…' },
    { title: 'Duplicate' },
    { title: 'Rename…' },
    { title: 'Export as PDF…' },
    { title: 'Print…' },
  ],
  Edit: [{ title: 'Undo', enabled: false }, { title: 'Redo', enabled: false }, { title: 'Cut', enabled: false }, { title: 'Copy', enabled: false }, { title: 'Paste' }, { title: 'Select All' }],
  Format: [{ title: 'Make Plain Text' }],
  View: [{ title: 'Show Ruler' }],
  Window: [{ title: 'Minimize' }, { title: 'Zoom' }],
};

export const TEXTEDIT_BUNDLE = 'com.apple.TextEdit';
export const HOME = '/Users/fake';

export interface SheetState {
  name: string;
  tags: string;
  format: string;
  formatOpen: boolean;
  expanded: boolean;
}

/** TextEdit with one document: the state the recording's tree is drawn from. */
export class FakeTextEdit {
  readonly pid = 4242;
  text = '';
  document: string | null = null;
  sheet: SheetState | null = null;
  focus = 'text';
  readonly files = new Map<string, string>();
  /** Presses that reached a disabled element: AX answered success and nothing happened. */
  ignoredPresses = 0;
  readonly #refs = new Map<string, string>();
  readonly #keys = new Map<string, string>();
  #next = 1;

  constructor(readonly opts: { expanded?: boolean } = {}) {}

  // ---- the tree ------------------------------------------------------------------------------------------------

  #menuBar(): El {
    return {
      key: 'menubar',
      role: 'AXMenuBar',
      children: Object.entries(MENUS).map(([menu, items]) => ({
        key: `menubar.${menu}`,
        role: 'AXMenuBarItem',
        title: menu,
        actions: PRESS,
        children: [
          {
            key: `menu.${menu}`,
            role: 'AXMenu',
            children: items.map((i) => ({
              key: `menu.${menu}.${i.title}`,
              role: 'AXMenuItem',
              title: i.title,
              enabled: menu === 'File' && i.title === 'Save…' ? this.sheet === null : (i.enabled ?? true),
              actions: PRESS,
            })),
          },
        ],
      })),
    };
  }

  #formatBar(): El {
    const popup = (key: string, description: string, value: string): El => ({ key, role: 'AXPopUpButton', description, value, actions: ['AXPress', 'AXShowMenu'] });
    const check = (key: string, description: string): El => ({ key, role: 'AXCheckBox', description, value: '0', actions: ['AXPress'] });
    return {
      key: 'formatbar',
      role: 'AXToolbar',
      description: 'format bar',
      children: [
        popup('formatbar.style', 'paragraph styles', 'Body'),
        popup('formatbar.font', 'font family', 'Helvetica'),
        popup('formatbar.size', 'font size', '12'),
        check('formatbar.bold', 'bold'),
        check('formatbar.italic', 'italic'),
        check('formatbar.underline', 'underline'),
        {
          key: 'formatbar.align',
          role: 'AXRadioGroup',
          description: 'text alignment',
          children: ['align left', 'center', 'justify', 'align right'].map((d, i) => ({
            key: `formatbar.align.${i}`,
            role: 'AXRadioButton',
            description: d,
            value: i === 0 ? '1' : '0',
            actions: ['AXPress'],
          })),
        },
      ],
    };
  }

  #sheetEl(s: SheetState): El {
    const label = (key: string, value: string): El => ({ key, role: 'AXStaticText', value, roleDescription: 'text' });
    const field = (key: string, titleKey: string, value: string): El => ({
      key,
      role: 'AXTextField',
      value,
      titleKey,
      roleDescription: 'text field',
      settable: ['AXValue', 'AXFocused', 'AXSelectedText'],
      actions: ['AXConfirm', 'AXShowMenu'],
    });
    const children: El[] = [
      label('sheet.saveas', 'Save As:'),
      field('sheet.name', 'sheet.saveas', s.name),
      label('sheet.tagslabel', 'Tags:'),
      field('sheet.tags', 'sheet.tagslabel', s.tags),
      label('sheet.wherelabel', 'Where:'),
      { key: 'sheet.where', role: 'AXPopUpButton', value: 'Documents', titleKey: 'sheet.wherelabel', actions: ['AXPress', 'AXShowMenu'] },
      { key: 'sheet.disclosure', role: 'AXDisclosureTriangle', description: 'show details', value: s.expanded ? '1' : '0', actions: ['AXPress'] },
    ];
    if (s.expanded) {
      children.push(
        { key: 'sheet.search', role: 'AXTextField', subrole: 'AXSearchField', description: 'search', value: '', settable: ['AXValue'], actions: ['AXConfirm', 'AXCancel'] },
        { key: 'sheet.newfolder', role: 'AXButton', title: 'New Folder', actions: ['AXPress'] },
        {
          key: 'sheet.browser',
          role: 'AXGroup',
          description: 'file browser',
          children: [
            field('sheet.browser.name', 'sheet.saveas', s.name),
            ...[...this.files.keys()].concat(['Notes.rtf', 'Shopping.rtf']).map((f, i) => ({
              key: `sheet.browser.row${i}`,
              role: 'AXTextField',
              value: f.split('/').pop() ?? f,
              roleDescription: 'text field',
              settable: ['AXValue'],
              actions: ['AXConfirm'],
            })),
          ],
        },
      );
    }
    children.push(label('sheet.formatlabel', 'File Format:'), {
      key: 'sheet.format',
      role: 'AXPopUpButton',
      value: s.format,
      titleKey: 'sheet.formatlabel',
      actions: ['AXPress', 'AXShowMenu'],
      children: s.formatOpen
        ? [{ key: 'sheet.format.menu', role: 'AXMenu', actions: ['AXCancel'], children: FORMATS.map((f) => ({ key: `sheet.format.menu.${f}`, role: 'AXMenuItem', title: f, actions: PRESS })) }]
        : [],
    });
    children.push(
      { key: 'sheet.cancel', role: 'AXButton', title: 'Cancel', actions: ['AXPress'] },
      { key: 'sheet.save', role: 'AXButton', title: 'Save', enabled: s.name.trim() !== '', actions: ['AXPress'] },
    );
    return { key: 'sheet', role: 'AXSheet', roleDescription: 'sheet', children };
  }

  #window(): El {
    const title = this.document ? (this.document.split('/').pop() ?? 'Untitled') : 'Untitled';
    const button = (key: string, subrole: string, roleDescription: string): El => ({ key, role: 'AXButton', subrole, roleDescription, actions: ['AXPress'] });
    return {
      key: 'window',
      role: 'AXWindow',
      subrole: 'AXStandardWindow',
      title,
      ...(this.document ? { document: `file://${this.document}` } : {}),
      children: [
        button('window.close', 'AXCloseButton', 'close button'),
        button('window.minimize', 'AXMinimizeButton', 'minimize button'),
        button('window.zoom', 'AXFullScreenButton', 'full screen button'),
        this.#formatBar(),
        {
          key: 'scroll',
          role: 'AXScrollArea',
          children: [
            {
              key: 'text',
              role: 'AXTextArea',
              value: this.text,
              identifier: 'First Text View',
              roleDescription: 'text entry area',
              settable: ['AXValue', 'AXSelectedText', 'AXSelectedTextRange', 'AXFocused'],
              actions: ['AXShowMenu'],
            },
          ],
        },
        ...(this.sheet ? [this.#sheetEl(this.sheet)] : []),
      ],
    };
  }

  #app(): El {
    return { key: 'app', role: 'AXApplication', title: 'TextEdit', children: [this.#menuBar(), this.#window()] };
  }

  // ---- refs: stable per element until it is destroyed ----------------------------------------------------------

  #refOf(key: string): string {
    let ref = this.#refs.get(key);
    if (!ref) {
      ref = `ax${this.#next++}`;
      this.#refs.set(key, ref);
      this.#keys.set(ref, key);
    }
    return ref;
  }

  #all(el: El, out: El[] = []): El[] {
    out.push(el);
    for (const c of el.children ?? []) this.#all(c, out);
    return out;
  }

  /** Elements no longer in the tree are destroyed: their refs go stale, each with a notification. */
  #sweep(): Emitted[] {
    const live = new Set(this.#all(this.#app()).map((e) => e.key));
    const out: Emitted[] = [];
    for (const [key, ref] of [...this.#refs]) {
      if (live.has(key)) continue;
      this.#refs.delete(key);
      this.#keys.delete(ref);
      out.push({ notification: 'AXUIElementDestroyed', ref });
    }
    return out;
  }

  #node(el: El, depth: number): AxNode {
    const enabled = el.enabled ?? true;
    return {
      ref: this.#refOf(el.key),
      role: el.role,
      ...(el.subrole !== undefined ? { subrole: el.subrole } : {}),
      ...(el.title !== undefined ? { title: el.title } : {}),
      ...(el.description !== undefined ? { description: el.description } : {}),
      ...(el.value !== undefined ? { value: el.value } : {}),
      ...(el.identifier !== undefined ? { identifier: el.identifier } : {}),
      ...(el.placeholder !== undefined ? { placeholder: el.placeholder } : {}),
      ...(el.roleDescription !== undefined ? { roleDescription: el.roleDescription } : {}),
      ...(el.titleKey !== undefined ? { titleElement: this.#refOf(el.titleKey) } : {}),
      ...(el.document !== undefined ? { document: el.document } : {}),
      enabled,
      focused: this.focus === el.key,
      settable: el.settable ?? [],
      actions: el.actions ?? [],
      children: depth > 1 ? (el.children ?? []).map((c) => this.#node(c, depth - 1)) : [],
    };
  }

  #find(ref: string): El {
    const key = this.#keys.get(ref);
    const el = key === undefined ? undefined : this.#all(this.#app()).find((e) => e.key === key);
    if (!el) throw new AxFault('stale_ref', `${ref} is no longer in TextEdit's tree (kAXErrorInvalidUIElement)`);
    return el;
  }

  /** The snapshot of a scope, to `maxDepth` levels. */
  snapshot(scope: 'app' | 'focused_window' | { ref: string }, maxDepth: number): AxNode {
    this.#sweep();
    if (scope === 'app') return this.#node(this.#app(), maxDepth);
    if (scope === 'focused_window') return this.#node(this.#window(), maxDepth);
    return this.#node(this.#find(scope.ref), maxDepth);
  }

  /** Whether an element is enabled (AXEnabled), as the helper reads it before a press. */
  enabled(ref: string): boolean {
    return this.#find(ref).enabled ?? true;
  }

  // ---- what AX does: actions and attribute writes --------------------------------------------------------------

  /** AXUIElementPerformAction. A press on a disabled element succeeds and does nothing, as AX does. */
  perform(ref: string, action: string): Emitted[] {
    const el = this.#find(ref);
    if (!(el.actions ?? []).includes(action)) throw new AxFault('action_not_listed', `${el.role} ${ref} lists [${(el.actions ?? []).join(', ')}], not ${action}`);
    if (el.enabled === false) {
      this.ignoredPresses++;
      return [];
    }
    if (action === 'AXCancel' && el.key === 'sheet.format.menu' && this.sheet) {
      this.sheet.formatOpen = false;
      return this.#sweep();
    }
    if (action !== 'AXPress') return [];
    const out: Emitted[] = [];
    switch (el.key) {
      case 'menu.File.Save…':
        this.sheet = { name: this.document ? (this.document.split('/').pop() ?? '').replace(/\.[a-z]+$/, '') : 'Untitled', tags: '', format: FORMATS[0] as string, formatOpen: false, expanded: this.opts.expanded ?? false };
        this.focus = 'sheet.name';
        out.push({ notification: 'AXSheetCreated', ref: this.#refOf('sheet') }, { notification: 'AXFocusedUIElementChanged', ref: this.#refOf('sheet.name') });
        break;
      case 'sheet.cancel':
        this.sheet = null;
        this.focus = 'text';
        break;
      case 'sheet.disclosure':
        if (this.sheet) this.sheet.expanded = !this.sheet.expanded;
        break;
      case 'sheet.format':
        if (this.sheet) this.sheet.formatOpen = true;
        break;
      case 'sheet.save':
        if (this.sheet) {
          const ext = EXTENSION[this.sheet.format] ?? 'rtf';
          const name = /\.[A-Za-z0-9]+$/.test(this.sheet.name) ? this.sheet.name : `${this.sheet.name}.${ext}`;
          const path = `${HOME}/Documents/${name}`;
          this.files.set(path, this.text);
          this.document = path;
          this.sheet = null;
          this.focus = 'text';
          out.push({ notification: 'AXTitleChanged', ref: this.#refOf('window') });
        }
        break;
      default:
        if (el.key.startsWith('sheet.format.menu.') && this.sheet) {
          this.sheet.format = el.title ?? this.sheet.format;
          this.sheet.formatOpen = false;
          out.push({ notification: 'AXValueChanged', ref: this.#refOf('sheet.format') });
        }
      // Any other press (a format-bar button, another menu item) is outside what the recording models: AX answers
      // success and the recording shows no change.
    }
    return [...out, ...this.#sweep()];
  }

  /** AXUIElementSetAttributeValue, refused unless AXUIElementIsAttributeSettable says yes. */
  set(ref: string, attr: string, value: string | boolean): Emitted[] {
    const el = this.#find(ref);
    if (!(el.settable ?? []).includes(attr)) throw new AxFault('not_settable', `${el.role} ${ref}: ${attr} is not settable`);
    if (attr === 'AXFocused') {
      if (value === true) this.focus = el.key;
      return [{ notification: 'AXFocusedUIElementChanged', ref }];
    }
    if (attr !== 'AXValue') return [];
    const text = String(value);
    if (el.key === 'text') this.text = text;
    else if ((el.key === 'sheet.name' || el.key === 'sheet.browser.name') && this.sheet) this.sheet.name = text;
    else if (el.key === 'sheet.tags' && this.sheet) this.sheet.tags = text;
    return [{ notification: 'AXValueChanged', ref }];
  }

  savedFiles(): SavedFile[] {
    return [...this.files].map(([path, text]) => ({ path, text }));
  }
}
