// One gesture engine (docs/design/verbs.md, "One gesture engine"): the procedures behind `press`, `hover`,
// `double_click`, `context_menu` and `choose` on a browser — open a list, open the submenus on a path, type to filter,
// pick, check the pick took, close what a failed pick opened — and every wait they make, written once over the input
// port (shared/gestures/port.ts). The runner (Playwright) and the extension (chrome.debugger) only carry them out.
import { isKey } from '../keys.ts';
import { SurfaceError } from '../surface.ts';
import type { GestureInput, PageAnswers, PageQuestion } from './port.ts';

/** How long a gesture's effect may take to show (an editor, a menu, a list, the pick taking): a page reacts without a server. */
export const GESTURE_SHOWS_MS = 2_000;

/**
 * How long a click has to open a combobox's list before Down Arrow is tried (Headless UI's Combobox opens on typing or
 * Down Arrow, not on a click).
 */
export const CLICK_OPENS_MS = 300;

/** How long a submenu may take to open on a hover before its item is clicked instead (Radix and MUI open on pointer entry after a short delay). */
export const HOVER_OPENS_MS = 500;

/**
 * How long the options of a combobox that filters may take to appear after its words are typed: long enough for a
 * server's answer (a search box asks its server as the person types), bounded so a name that never comes fails.
 */
export const TYPED_OPTIONS_MS = 5_000;

/** How often a question is asked again while its answer is awaited, at the most (a page change asks at once). */
const ASK_EVERY_MS = 50;

/** The gestures this engine carries out: the verbs done with a person's input, not by a script in the page. */
export const GESTURE_VERBS = ['press', 'hover', 'double_click', 'context_menu', 'choose'] as const;
export type GestureVerb = (typeof GESTURE_VERBS)[number];

/** Why a `choose` by a path stopped: the submenu of the item named `name` opened on none of the gestures. */
export function submenuDidNotOpen(name: string): string {
  return `the submenu of "${name.slice(0, 60)}" did not open (hovered, clicked, ArrowRight)`;
}

/**
 * Asks `ask` until `done` holds of its answer or `ms` have passed, woken early by a change of the page (`changed`);
 * its last answer. The one poll-until of both browser surfaces.
 */
export async function askUntil<T>(ask: () => Promise<T>, done: (t: T) => boolean, ms: number, changed: (ms: number) => Promise<void>): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await ask();
    const left = until - Date.now();
    if (done(got) || left <= 0) return got;
    await changed(Math.min(ASK_EVERY_MS, left));
  }
}

/** Whether `e` says the document went away (a pick that was a link, a key that submitted). */
function isStale(e: unknown): boolean {
  return e instanceof SurfaceError && e.code === 'STALE';
}

/** One control's gestures over one backend's input; `ref` and the value name it in what a failure says. */
class Gestures {
  constructor(
    private readonly input: GestureInput,
    private readonly ref: string,
    private readonly value: string,
  ) {}

  private ask<Q extends PageQuestion>(q: Q): Promise<PageAnswers[Q]> {
    return this.input.ask(q);
  }

  /** `ask(q)` until `done`, for `ms`. */
  private until<Q extends PageQuestion>(q: Q, done: (a: PageAnswers[Q]) => boolean, ms = GESTURE_SHOWS_MS): Promise<PageAnswers[Q]> {
    return askUntil(() => this.ask(q), done, ms, (t) => this.input.changed(t));
  }

  private failed(verb: GestureVerb, why: string): SurfaceError {
    return new SurfaceError('ACTION_FAILED', `${verb} on ${this.ref}: ${why}`);
  }

  async run(verb: GestureVerb): Promise<void> {
    switch (verb) {
      case 'press':
        // The key goes to the named control (focused first), not wherever the focus was left.
        if (!isKey(this.value)) throw this.failed('press', `"${this.value.slice(0, 20)}" is not a key press takes`);
        return this.input.key(this.value, 'target');
      case 'hover':
        // A control shown only on hover cannot be hovered itself while hidden: its nearest shown ancestor is (the row).
        await this.input.hover('row');
        if (!(await this.until('shown', (s) => s))) throw this.failed('hover', 'hovering its row did not show it');
        return;
      case 'double_click': {
        // Rename in place: the double-click must change the screen (an editor appears), else it fails by name. The
        // pointer is moved there first, so what a hover alone shows (a row's actions) is not taken for it.
        await this.input.hover('target');
        const before = await this.ask('screen');
        await this.input.click('target', { count: 2 });
        // A double-click may take the page away: then there is nothing left to check.
        const after = await this.until('screen', (s) => s !== before).catch((e: unknown) => (isStale(e) ? null : Promise.reject(e as Error)));
        if (after === before) throw this.failed('double_click', 'nothing on the screen changed');
        return;
      }
      case 'context_menu': {
        // A right-click counts only when a menu appears (items not showing before); nothing more is done otherwise.
        await this.input.hover('target');
        const before = await this.ask('menuItems');
        await this.input.click('target', { button: 'right' });
        const after = await this.until('menuItems', (m) => m.some((x) => !before.includes(x)));
        if (!after.some((x) => !before.includes(x))) throw this.failed('context_menu', 'no menu appeared');
        return;
      }
      case 'choose':
        return this.choose();
    }
  }

  /**
   * `choose` in a custom ARIA combobox or listbox (WAI-ARIA APG "Combobox Pattern", "Listbox Pattern"), a menu
   * button's menu ("Menu Button Pattern") or a disclosure's list: open it unless it is open, open the submenus on a
   * path, find the one option or item named by the value (typing its words first into a combobox that filters, whose
   * options come only then), click it, and check the pick took. A pick that finds nothing to click closes the list it
   * opened, so the page is as it was (a modal list left open would hide the rest of the page from the next look).
   */
  private async choose(): Promise<void> {
    const wasOpen = await this.ask('listOpen');
    if (!wasOpen) await this.openList();
    try {
      await this.openSubmenus();
      await this.findOption();
      await this.input.click('option');
    } catch (e) {
      if (!wasOpen) await this.closeList();
      throw e;
    }
    // A pick whose effect is a new page (a menu item that is a link) has taken: the next screen is for settling to name.
    const why = await this.until('notChosen', (w) => w === null).catch((e: unknown) => (isStale(e) ? null : Promise.reject(e as Error)));
    if (why !== null) throw this.failed('choose', why);
  }

  /**
   * Waits for the option to pick. A list rendered a moment after opening is waited for; a combobox that filters and
   * does not list the option at once is typed its words (a search box lists what its server answers to them) and the
   * option is waited for as long as a server may take. No option of that name fails by name.
   */
  private async findOption(): Promise<void> {
    let why = await this.ask('option');
    if (why !== null && (await this.ask('filters'))) {
      const held = await this.ask('holds');
      await this.input.type(this.value);
      why = await this.until('option', (w) => w === null, TYPED_OPTIONS_MS);
      if (why === null) return;
      // What it held before is typed back, so the field is as it was.
      await this.input.type(held ?? '').catch(() => undefined);
      throw new SurfaceError('ACTION_FAILED', `${why}, after typing "${this.value.slice(0, 60)}" and waiting ${TYPED_OPTIONS_MS / 1000} s for it`);
    }
    if (why !== null) why = await this.until('option', (w) => w === null);
    if (why !== null) throw new SurfaceError('ACTION_FAILED', why);
  }

  /**
   * Opens the list as a person would: a click; and for a combobox a click does not open (Headless UI's opens on
   * typing or on Down Arrow), Down Arrow on it (WAI-ARIA APG "Combobox Pattern", keyboard interaction). A list the page
   * renders later than that is waited for by the pick.
   */
  private async openList(): Promise<void> {
    await this.input.click('target');
    if (!(await this.ask('combobox'))) return;
    if (!(await this.until('listOpen', (o) => o, CLICK_OPENS_MS))) await this.input.key('ArrowDown', 'target');
  }

  /**
   * `choose` by a path through submenus (docs/design/verbs.md, "The six verbs": submenus): each submenu on the way is
   * opened as menus open them — a hover (Radix, MUI), else a click (WAI-ARIA APG menubar), else ArrowRight on the
   * focused item (the APG keyboard) — and each is waited for, so the pick is clicked in a showing menu. A level that is
   * not there is left to the pick, which names it in the walker's words.
   */
  private async openSubmenus(): Promise<void> {
    for (let level = 0; level < 8; level++) {
      const next = await this.until('submenu', (n) => typeof n !== 'string');
      if (next === null || typeof next === 'string') return;
      await this.input.hover('submenu');
      if (await this.submenuOpens(HOVER_OPENS_MS)) continue;
      await this.input.click('submenu');
      if (await this.submenuOpens(GESTURE_SHOWS_MS)) continue;
      await this.input.key('ArrowRight', 'submenu');
      if (await this.submenuOpens(GESTURE_SHOWS_MS)) continue;
      throw new SurfaceError('ACTION_FAILED', submenuDidNotOpen(next.item));
    }
  }

  private submenuOpens(ms: number): Promise<boolean> {
    return this.until('submenuOpened', (o) => o, ms);
  }

  /**
   * Closes the list a failed pick opened, as a person would: Escape where the focus is (in the list, for MUI's and
   * Radix's; in the field, for an editable combobox), once for each level still open while the focus is in one of them
   * (APG: Escape closes the menu that holds the focus), then — a combobox only — Escape on the control itself. A menu
   * button is never sent Escape itself: APG's ignores it, and it would reach a dialog around the menu and close that;
   * one whose menu is still open is clicked, which toggles it shut. Never rejects: it only tidies up.
   */
  private async closeList(): Promise<void> {
    const open = (): Promise<boolean> => this.ask('listOpen').catch(() => false);
    // A list still saying it is open a moment after an Escape (a close being animated says so until it ends) is given
    // the moment before anything more is sent.
    const closes = async (): Promise<boolean> => !(await askUntil(open, (o) => !o, 500, (t) => this.input.changed(t).catch(() => undefined)));
    try {
      if (!(await open())) return;
      for (let level = 0; level < 4; level++) {
        await this.input.key('Escape').catch(() => undefined);
        if (await closes()) return;
        if (!(await this.ask('focusInList').catch(() => false))) break;
      }
      if (await this.ask('combobox')) await this.input.key('Escape', 'target');
      else await this.input.click('target', { tidy: true });
    } catch {
      // Tidying up only.
    }
  }
}

/**
 * Carries out one gesture verb on the control `ref` names, over a backend's input: the same procedure, the same
 * waits and the same words on the runner and in the extension.
 */
export function gesture(input: GestureInput, ref: string, verb: GestureVerb, value: string): Promise<void> {
  return new Gestures(input, ref, value).run(verb);
}
