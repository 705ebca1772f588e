// What a surface sees: one screen as controls, structural paths and a signature.
// A surface observes each part of its screen (the browser: each frame, with shared/dom's walker); shared/screens.ts
// joins the parts into one Observation.
import { z } from 'zod';

/**
 * The closed vocabulary of operations a surface performs on a control (docs/design/verbs.md, "The six verbs":
 * act). `select` is a native <select>; `choose` is a custom ARIA combobox or listbox, or a menu button's menu
 * (open, pick the option or item by name, check it took; a menu button is offered it in `offers`). `press` takes a key from the operations table's KEYS; `hover` reveals the control it
 * names (a row's icon action shown on hover). `double_click` and `context_menu` (a right-click that must open a
 * menu) are offered only where the page listens for them (`Control.offers`, shared/dom/gestures.ts).
 * `read_rows` reads a table, grid or list as rows with named columns (docs/design/capability.md, "Rows as outputs"): no
 * walker role lists it (a table is not a control), so no control's fingerprint changes.
 */
export const Verb = z.enum(['invoke', 'set_value', 'select', 'toggle', 'read', 'press', 'hover', 'double_click', 'choose', 'read_rows', 'context_menu']);
export type Verb = z.infer<typeof Verb>;

/**
 * One link of a scope chain, outermost first: the frame, a named container, a dialog (named or not), a landmark
 * (banner, navigation, main, contentinfo, complementary, search: named by its accessible name, else its role), a row.
 * A row is named by its key, the text of the first column whose texts tell the rows apart.
 */
export const ScopeLink = z
  .strictObject({
    role: z.enum(['frame', 'row', 'group', 'dialog', 'table', 'form', 'region', 'landmark']),
    name: z.string(),
    /**
     * A row only, on a surface whose rows carry it (shared/surfaces.ts `rowColumns`): the header of the column its key
     * is read from. In an observation it says where the key came from; in a card it pins it ("the row whose SHARE ID
     * is …"): a row keyed by another column is not that row (docs/design/terminal.md, "Rows on a terminal screen").
     */
    column: z.string().min(1).optional(),
  })
  .refine((l) => l.column === undefined || l.role === 'row', { message: 'only a row link names a column (the header its key is read from)', path: ['column'] });
export type ScopeLink = z.infer<typeof ScopeLink>;

/** One control as the walker sees it. `ref` is only meaningful inside the observation that made it. */
export const Control = z.strictObject({
  ref: z.string(),
  role: z.string(),
  name: z.string(),
  /** A visual label (neighbouring table cell, preceding text) used when `name` is empty. */
  hint: z.string().optional(),
  verbs: z.array(Verb).min(1),
  scope: z.array(ScopeLink),
  /** Roles of ancestors that matter for a fingerprint (row, table, form, group, dialog...). */
  ancestors: z.array(z.string()),
  value: z.string().optional(),
  /** For comboboxes / listboxes: the visible option labels. */
  options: z.array(z.string()).optional(),
  disabled: z.boolean().optional(),
  /** The field hides what is typed into it (a password field): the only kind a secret may be typed into. */
  secret: z.boolean().optional(),
  /** aria-expanded (a <summary>: its <details> open), when the control carries it. */
  expanded: z.boolean().optional(),
  /** aria-selected of an option, tab, tree item or grid row, when the control carries it. */
  selected: z.boolean().optional(),
  /**
   * Gestures the page was seen listening for on this element (double-click, right-click: shared/dom/gestures.ts),
   * offered beside `verbs` and never hashed into a fingerprint (docs/design/verbs.md, "Gestures a page listens for").
   */
  offers: z.array(Verb).optional(),
});
export type Control = z.infer<typeof Control>;

/**
 * Where a part of a screen, or the screen as a whole, sits on its surface: the browser's frame URL and title, a
 * terminal's host and screen, a macOS app, window and sheet. The core carries it into evidence and books and never
 * reads inside it (docs/design/verbs.md, "A neutral observation"); only the surface that wrote it interprets it.
 */
export const Locus = z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.string());
export type Locus = z.infer<typeof Locus>;

/** One part of a screen as its surface sees it: a browser frame, a terminal's one screen, a macOS window or sheet. */
export const Part = z.strictObject({
  /** The part's path from the whole screen: [] for the top part; the browser's frame path, e.g. ['work']. */
  part: z.array(z.string()),
  locus: Locus,
  controls: z.array(Control),
  /** Structural paths of this part (furniture only, data masked). */
  paths: z.array(z.string()),
  /**
   * Visible text of the part, whitespace-normalised: its content, without what its live regions say (`said`), so an
   * announcement never proves a record (docs/design/replay.md, "What the app says").
   */
  text: z.string(),
  /**
   * What the part's visible live regions say (role alert, status or log, aria-live polite or assertive, `<output>`),
   * one string per region, whitespace-normalised, in document order; absent when none says anything. Beside the screen,
   * never in its paths or signature.
   */
  said: z.array(z.string().min(1)).min(1).optional(),
  /**
   * The part's rows (shared/dom/rows.ts: a table's, a grid's, a list's items) by key, with their visible text: what a
   * row-scoped pre- or postcondition reads ("the row whose key is KEY shows WORDS"). Absent when the surface has none.
   */
  rows: z.array(z.strictObject({ key: z.string().min(1), text: z.string() })).optional(),
  /** The surface says this part is not done (loading, a busy region, a progress bar): not at rest, whatever it shows. */
  busy: z.literal(true).optional(),
  /** A finite animation or transition is running in this part (shared/dom `isMoving`): what shows is on its way. */
  moving: z.literal(true).optional(),
});
export type Part = z.infer<typeof Part>;

export const Observation = z.strictObject({
  /** The top part's locus. */
  locus: Locus,
  parts: z.array(Part),
  /** Union of every part's paths, each prefixed by its part path; sorted, unique. */
  paths: z.array(z.string()),
  /** Hash of `paths`: two screens with the same furniture share a signature. */
  signature: z.string(),
  /** Some part is not done (see Part.busy): waiting goes on while it is, up to the step's timeout. */
  busy: z.literal(true).optional(),
  /** Some part is moving (see Part.moving): authoring's settle waits a while for it to end; replay does not. */
  moving: z.literal(true).optional(),
  /** Version of the surface's observer (the browser's DOM walker) that produced this: it goes into fingerprints. */
  observer: z.string(),
});
export type Observation = z.infer<typeof Observation>;

/**
 * One row of a table, grid or list as a surface reads it for `read_rows` (docs/design/capability.md, "Rows as outputs"):
 * its cells by column header text (a table's or grid's; empty for a list item) and its whole visible text. A field's
 * typed value is never part of it, so a password never is.
 */
export const SurfaceRow = z.strictObject({
  cells: z.record(z.string(), z.string()),
  text: z.string(),
});
export type SurfaceRow = z.infer<typeof SurfaceRow>;

/** What `read_rows` reads: the column headers (none for a list), so a missing header shows even with no rows, and the rows. */
export const SurfaceRows = z.strictObject({ headers: z.array(z.string()), rows: z.array(SurfaceRow) });
export type SurfaceRows = z.infer<typeof SurfaceRows>;
