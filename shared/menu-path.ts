// A `choose` value that reaches an item of a submenu (docs/design/verbs.md, "The six verbs": choose, submenus): the
// item names from the menu button's menu down to the item, joined by one separator. Written once: the walker reads
// it in the page (shared/dom/options.ts), the guard writes it (shared/author/guard.ts), the card schema checks it.

/**
 * The separator of a menu path: a space, U+203A SINGLE RIGHT-POINTING ANGLE QUOTATION MARK, a space ("Export › PDF"),
 * as menus draw the arrow of a submenu. A name may hold it too; how that is told apart is the walker's (options.ts
 * `levelsOf`): the whole value naming an item of the menu wins, and a value that could be read both ways is refused.
 */
export const MENU_PATH = ' \u203a ';

/** The path's levels, as written (a value without the separator is one level). */
export function menuLevels(value: string): string[] {
  return value.split(MENU_PATH);
}

/** One value for the levels from a menu button's menu down to an item. */
export function menuPathValue(levels: readonly string[]): string {
  return levels.join(MENU_PATH);
}
