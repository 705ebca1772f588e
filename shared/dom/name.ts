// Accessible names per "Accessible Name and Description Computation 1.2" (accname) §4.3 and the HTML-AAM
// §4.1 "Accessible Name Computations By HTML Element", with Chromium's choices (as mirrored by Playwright).
import { isListButton, roleOf, upper } from './role.ts';
import { cssContent, isHiddenForAria, isIgnoredName, styleOf, unrendered, type DomCache } from './style.ts';

/**
 * The name as `getByRole(..., { name, exact: true })` compares it: zero-width space and soft hyphen dropped
 * (they never render), runs of whitespace (including NBSP) collapsed to one space, trimmed.
 */
export function normalize(s: string | null | undefined): string {
  if (!s) return '';
  // Most strings are already normal (no dropped character, no whitespace but single inner spaces): one test, and
  // the string is returned as it is, which is what the replacements and the trim would give.
  if (!NOT_NORMAL.test(s)) return s;
  return s.replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
}

/** A character normalize drops, whitespace other than a space, two whitespace in a row, or whitespace at either end. */
const NOT_NORMAL = /[\u200b\u00ad]|[^\S ]|\s\s|^\s|\s$/;

/**
 * Whether an attribute's text (aria-label, title, placeholder, alt, a value) or a reference's text counts as absent:
 * Chromium skips it only when it is empty or ASCII whitespace (space, tab, LF, VT, FF, CR). A no-break space, an em
 * space, an ideographic space or a zero-width space is text: the name is taken from it (and normalizes to ''), and
 * nothing after it is read. JavaScript's `trim()` would drop those too, so it is not used for this.
 */
export function blank(s: string | null | undefined): boolean {
  return !s || !NOT_BLANK.test(s);
}

const NOT_BLANK = /[^ \t\n\v\f\r]/;

interface Embedding {
  hidden: boolean;
}

interface Walk {
  c: DomCache;
  visited: Set<Element>;
  /** 'self' while computing the root element, 'descendant' inside its content (accname §4.3.2 step 2F). */
  target: 'self' | 'descendant' | undefined;
  labelledBy?: Embedding | undefined;
  label?: Embedding | undefined;
  native?: Embedding | undefined;
}

/** Roles that take their name from content (ARIA 1.2 §5.2.8.4 "Roles Supporting Name from Content"). */
const NAME_FROM_CONTENT = new Set([
  'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox',
  'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem',
]);

/** Inside the root's content, these also contribute their content (accname §4.3.2 step 2F: "the current node is a
 *  descendant of an element whose name is being computed from content"; Chromium's list for generic containers). */
const NAME_FROM_CONTENT_AS_DESCENDANT = new Set([
  '', 'caption', 'code', 'contentinfo', 'definition', 'deletion', 'emphasis', 'insertion', 'list', 'listitem',
  'mark', 'none', 'paragraph', 'presentation', 'region', 'row', 'rowgroup', 'section', 'strong', 'subscript',
  'superscript', 'table', 'term', 'time',
]);

/** Roles whose names are prohibited (ARIA 1.2 §5.2.8.6 "Roles which cannot be named"). */
const CANNOT_BE_NAMED = new Set([
  'caption', 'code', 'definition', 'deletion', 'emphasis', 'generic', 'insertion', 'mark', 'paragraph',
  'presentation', 'strong', 'subscript', 'suggestion', 'superscript', 'term', 'time',
]);

const PLACEHOLDER_TYPES = new Set(['text', 'password', 'number', 'search', 'tel', 'email', 'url']);

/** No element: what `idRefs` answers for an absent attribute (most elements), shared, never added to. */
const NO_REFS: readonly Element[] = [];

function idRefs(el: Element, attr: string | null): readonly Element[] {
  if (!attr) return NO_REFS;
  const root = el.getRootNode() as Document | ShadowRoot;
  const out: Element[] = [];
  for (const id of attr.split(/[ \t\n\f\r]+/)) {
    if (!id) continue;
    const found = root.getElementById ? root.getElementById(id) : null;
    if (found && !out.includes(found)) out.push(found);
  }
  return out;
}

/** aria-labelledby, else its common misspelling aria-labeledby (null when neither is there). */
export function labelledByAttr(el: Element): string | null {
  return el.getAttribute('aria-labelledby') ?? el.getAttribute('aria-labeledby');
}

export function accessibleName(c: DomCache, el: Element): string {
  const cached = c.name.get(el);
  if (cached !== undefined) return cached;
  let name = '';
  if (!CANNOT_BE_NAMED.has(roleOf(c, el))) {
    name = normalize(textAlternative(el, { c, visited: new Set(), target: 'self' }));
  }
  c.name.set(el, name);
  return name;
}

/**
 * A control whose own content is the value it holds, chosen from a list: a combobox (WAI-ARIA 1.2 §5.4 combobox: its
 * value is what it shows) or a button that opens a listbox (role.ts isListButton).
 */
function holdsItsValue(c: DomCache, el: Element): boolean {
  const role = roleOf(c, el);
  return role === 'combobox' || (role === 'button' && isListButton(el));
}

function inHiddenReference(w: Walk): boolean {
  return !!(w.labelledBy?.hidden || w.label?.hidden || w.native?.hidden);
}

/** accname 1.2 §4.3.2 "Computation steps", one node. */
function textAlternative(el: Element, w: Walk): string {
  if (w.visited.has(el)) return '';
  const c = w.c;

  // The element's tag name, read once for every step below.
  const tagName = el.tagName;
  // Step 2A: hidden nodes are skipped unless reached through a hidden aria-labelledby/label reference.
  if (isIgnoredName(tagName) || (!inHiddenReference(w) && isHiddenForAria(c, el, tagName))) {
    w.visited.add(el);
    return '';
  }

  // Step 2B: aria-labelledby, not followed recursively. Chromium and Firefox also honour the misspelling
  // aria-labeledby when aria-labelledby is absent (Chromium's AXNodeObject reads both).
  const labelledBy = idRefs(el, labelledByAttr(el));
  if (!w.labelledBy) {
    const refsText = (refs: readonly Element[], visited: Set<Element>): string =>
      refs
        .map((ref) =>
          textAlternative(ref, {
            c, visited, target: undefined,
            labelledBy: { hidden: isHiddenForAria(c, ref) },
          }),
        )
        .join(' ');
    // A control a person chooses a value in that lists itself, or a part of itself, among its labels (Headless UI's
    // Listbox button: aria-labelledby="label button"; React Aria's Select: "value-span label") is named by its other
    // labels: that part is what it shows, the value it holds now, which the walker reads as its value. Chromium's name
    // keeps it ("Queue Claims"); the walker's does not ("Queue"), so a card aimed at the control is not bound to the
    // value it held (docs/design/walker.md, "The walker", "One deliberate difference"). Not when its own part is its
    // aria-label ("Sort"): that is a name, and two such buttons under one label must stay apart.
    const own = (r: Element): boolean => (r === el ? !(el.getAttribute('aria-label') ?? '').trim() : el.contains(r));
    const others =
      w.target === 'self' && labelledBy.some(own) && !labelledBy.every(own) && holdsItsValue(c, el) ? refsText(labelledBy.filter((r) => !own(r)), new Set(w.visited)) : '';
    const text = normalize(others) ? others : refsText(labelledBy, w.visited);
    // References that give nothing (missing, or only hidden or empty content) leave the name to the steps below, as
    // in Chromium: the element's aria-label, its <label>, its content.
    if (!blank(text)) return text;
  }

  const tag = upper(tagName);
  const role = roleOf(c, el, tag);
  // The walk for this node's content and embedded parts; made here, after the steps that return without one.
  const child: Walk = { ...w, target: w.target === 'self' ? 'descendant' : w.target };

  // Step 2C: an embedded control contributes its value when part of another element's name.
  if (w.label || w.labelledBy || w.target === 'descendant') {
    const ownLabel = [...((el as HTMLInputElement).labels ?? [])].includes(el as HTMLLabelElement);
    if (!ownLabel && !labelledBy.includes(el)) {
      const embedded = embeddedValue(el, tag, role, w, child);
      if (embedded !== undefined) return embedded;
    }
  }

  // Step 2D: aria-label.
  const ariaLabel = el.getAttribute('aria-label') || '';
  if (!blank(ariaLabel)) {
    w.visited.add(el);
    return ariaLabel;
  }

  // Step 2E: host language label (HTML-AAM §4.1).
  if (role !== 'presentation' && role !== 'none') {
    const native = nativeTextAlternative(el, tag, role, w, child);
    if (native !== undefined) return native;
  }

  // An ARIA text field's placeholder (WAI-ARIA 1.2 aria-placeholder): Chromium names a role=textbox or searchbox by it
  // before its title. A native field reads it after its own placeholder (nativeTextAlternative).
  if ((role === 'textbox' || role === 'searchbox') && !isNativeField(tag)) {
    const placeholder = el.getAttribute('aria-placeholder');
    if (!blank(placeholder)) {
      w.visited.add(el);
      return placeholder ?? '';
    }
  }

  // Step 2F: name from content.
  const fromContent = NAME_FROM_CONTENT.has(role) ||
    (w.target === 'descendant' && NAME_FROM_CONTENT_AS_DESCENDANT.has(role)) ||
    (tag === 'SUMMARY' && role !== 'presentation' && role !== 'none') ||
    // SVG-AAM §8 "Text alternative computation": an <svg> and its shapes inside a name read their <text>.
    (w.target === 'descendant' && el.namespaceURI === SVG_NS) ||
    !!w.labelledBy || !!w.label || !!w.native;
  if (fromContent) {
    w.visited.add(el);
    const text = contentText(el, child);
    if ((w.target === 'self' ? text.trim() : text)) return text;
  }

  // Step 2I: tooltip attribute (title).
  if ((role !== 'presentation' && role !== 'none') || tag === 'IFRAME' || tag === 'FRAME') {
    w.visited.add(el);
    const title = el.getAttribute('title') || '';
    if (!blank(title)) return title;
  }
  w.visited.add(el);
  return '';
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An element whose own value is typed into it: a text-like <input> and a <textarea>. */
function isNativeField(tag: string): boolean {
  return tag === 'INPUT' || tag === 'TEXTAREA';
}

/** <input> types whose value Chromium reads as text inside another element's name; a date, a time or a colour gives ''. */
const TEXT_VALUE_TYPES = new Set(['text', 'search', 'tel', 'url', 'email', 'password', 'number']);

/** WAI-ARIA 1.2 value defaults when aria-valuenow is absent, as Chromium reads them: a slider's and scrollbar's is
 *  halfway between aria-valuemin and aria-valuemax (0 and 100 unless given); a spinbutton's and a meter's is 0. */
function ariaValueDefault(el: Element, role: string): string {
  if (role === 'slider' || role === 'scrollbar') {
    const num = (attr: string, fallback: number): number => {
      const v = parseFloat(el.getAttribute(attr) ?? '');
      return Number.isFinite(v) ? v : fallback;
    };
    return String((num('aria-valuemin', 0) + num('aria-valuemax', 100)) / 2);
  }
  if (role === 'spinbutton' || role === 'meter') return '0';
  return '';
}

/**
 * accname §4.3.2 step 2C for one embedded control (its value inside the name of another element), as Chromium gives
 * it; undefined when the element is no such control. A password gives one bullet per character (U+2022, as Chromium
 * exposes it: its value never enters a name); an empty text field gives its own name (its title, placeholder,
 * aria-label, label); a combobox that shows no chosen option gives what it shows.
 */
function embeddedValue(el: Element, tag: string, role: string, w: Walk, child: Walk): string | undefined {
  const c = w.c;
  if (role === 'textbox' || role === 'searchbox') {
    w.visited.add(el);
    if (!isNativeField(tag)) return el.textContent || '';
    const input = el as HTMLInputElement;
    if (tag === 'INPUT' && !TEXT_VALUE_TYPES.has(input.type)) return '';
    if (input.value) return tag === 'INPUT' && input.type === 'password' ? '\u2022'.repeat(input.value.length) : input.value;
    return ownName(el, w);
  }
  if (role === 'combobox' || role === 'listbox') {
    w.visited.add(el);
    let selected: Element[] = [];
    if (tag === 'SELECT') {
      const sel = el as HTMLSelectElement;
      selected = [...sel.selectedOptions];
      if (!selected.length && sel.options.length && sel.options[0]) selected.push(sel.options[0]);
    } else {
      const box = role === 'combobox' ? [...el.querySelectorAll('*')].find((e) => roleOf(c, e) === 'listbox') : el;
      selected = box
        ? [...box.querySelectorAll('[aria-selected="true" i]')].filter((e) => roleOf(c, e) === 'option')
        : [];
    }
    if (!selected.length && tag === 'INPUT') return (el as HTMLInputElement).value;
    if (!selected.length && role === 'combobox' && tag !== 'SELECT') return contentText(el, child);
    return selected.map((o) => textAlternative(o, child)).join(' ');
  }
  if (['progressbar', 'scrollbar', 'slider', 'spinbutton', 'meter'].includes(role)) {
    w.visited.add(el);
    const text = el.getAttribute('aria-valuetext') ?? el.getAttribute('aria-valuenow');
    if (text !== null) return text;
    // A native range and number input know their value (a range's default is its midpoint); an empty number field,
    // like an empty text field, gives its own name.
    if (tag === 'INPUT') return (el as HTMLInputElement).value || ownName(el, w);
    return el.getAttribute('value') ?? ariaValueDefault(el, role);
  }
  if (role === 'menu') {
    w.visited.add(el);
    return '';
  }
  return undefined;
}

/** The name an embedded field would have of its own, computed apart from the walk it is embedded in. */
function ownName(el: Element, w: Walk): string {
  // Its own visited set (the walk's, less the field itself): what the walk met is not met twice, and the field is.
  const visited = new Set(w.visited);
  visited.delete(el);
  return textAlternative(el, { c: w.c, visited, target: 'self' });
}

/**
 * The element's <label>s as `el.labels` lists them: the label elements, in tree order, whose labeled control is the
 * element (HTML §4.10.4 "The label element"; none for an element without `labels`, and none for an input that is not
 * labelable, whose `labels` is null). A label's labeled control is in the label's own tree (its `for` target in that
 * tree, else a descendant), so one table per document or shadow root, made from that tree's labels once per walk
 * (docs/design/walker.md, "The walker", "Asked once, or not at all"), answers for every field in it: `el.labels.length`
 * asked per field is a live list the browser counts again.
 */
const NO_LABELS: readonly HTMLLabelElement[] = [];

function labelsOf(c: DomCache, el: Element): readonly HTMLLabelElement[] {
  if (!('labels' in el)) return NO_LABELS;
  const root = el.getRootNode();
  let table = c.labels.get(root);
  if (!table) {
    table = new Map();
    for (const label of (root as Document | ShadowRoot).querySelectorAll('label')) {
      const control = (label as HTMLLabelElement).control;
      if (!control) continue;
      const list = table.get(control);
      if (list) list.push(label as HTMLLabelElement);
      else table.set(control, [label as HTMLLabelElement]);
    }
    c.labels.set(root, table);
  }
  return table.get(el) ?? NO_LABELS;
}

/**
 * The text of the element's <label>s, '' when it has none. A label that is itself hidden (display:none,
 * visibility:hidden or collapse, aria-hidden, the hidden attribute, inside a hidden element) gives nothing: Chromium
 * follows the reference and finds no text, where the WPT accname tests and Playwright still read the hidden label
 * (HTML-AAM, "Clarify hidden elements do not return name"; docs/design/walker.md, "The walker").
 */
function fromLabels(el: Element, w: Walk): string {
  return labelsOf(w.c, el)
    .filter((label) => !isHiddenForAria(w.c, label))
    .map((label) => textAlternative(label, { c: w.c, visited: w.visited, target: undefined, label: { hidden: false } }))
    .filter((t) => !!t)
    .join(' ');
}

/**
 * HTML-AAM §4.1 "label" for a labelable element, as Chromium reads it: an element with <label>s is named by them and
 * by nothing after them, so a hidden or empty label leaves the name '' (no title, placeholder, value or default
 * "Submit"). Undefined when the element has no label and its other rules follow.
 */
function byLabels(el: Element, w: Walk): string | undefined {
  return labelsOf(w.c, el).length ? fromLabels(el, w) : undefined;
}

/**
 * The first child of `el` with the tag `want` (a fieldset's <legend>, a figure's <figcaption>, a table's <caption>),
 * as the name HTML-AAM gives `el` from it: its text, or '' when it is hidden (Chromium, as for a hidden <label>; the
 * title or summary after it is not read). Undefined when there is no such child.
 */
function fromChild(el: Element, want: string, child: Walk): string | undefined {
  for (let ch = el.firstElementChild; ch; ch = ch.nextElementSibling) {
    if (ch.tagName.toUpperCase() !== want) continue;
    if (isHiddenForAria(child.c, ch)) return '';
    return textAlternative(ch, { ...child, native: { hidden: false } });
  }
  return undefined;
}

/** HTML-AAM §4.1 per element; undefined when the element has no native rule and computation continues. */
function nativeTextAlternative(el: Element, tag: string, role: string, w: Walk, child: Walk): string | undefined {
  const input = el as HTMLInputElement;
  const title = () => el.getAttribute('title') || '';
  if (tag === 'INPUT' && ['button', 'submit', 'reset'].includes(input.type)) {
    // HTML-AAM §4.1.4: <label>, then value, else the UA's default label ("Submit", "Reset") when there is no value
    // attribute at all (Chromium: value="" names it ''), else title.
    w.visited.add(el);
    const label = w.labelledBy ? undefined : byLabels(el, w);
    if (label !== undefined) return label;
    if (!blank(input.value)) return input.value;
    if (!el.hasAttribute('value') && input.type === 'submit') return 'Submit';
    if (!el.hasAttribute('value') && input.type === 'reset') return 'Reset';
    return title();
  }
  if (tag === 'INPUT' && input.type === 'file') {
    w.visited.add(el);
    return (w.labelledBy ? undefined : byLabels(el, w)) ?? 'Choose File';
  }
  if (tag === 'INPUT' && input.type === 'image') {
    // HTML-AAM §4.1.5: label, alt, title, then "Submit".
    w.visited.add(el);
    const label = w.labelledBy ? undefined : byLabels(el, w);
    if (label !== undefined) return label;
    const alt = el.getAttribute('alt') || '';
    if (!blank(alt)) return alt;
    if (!blank(title())) return title();
    return 'Submit';
  }
  if (tag === 'BUTTON') {
    w.visited.add(el);
    return byLabels(el, w);
  }
  if (tag === 'OUTPUT') {
    w.visited.add(el);
    return byLabels(el, w) ?? title();
  }
  if (['TEXTAREA', 'SELECT', 'INPUT', 'METER', 'PROGRESS'].includes(tag)) {
    // HTML-AAM §4.1.1/§4.1.2: <label>, then title, then placeholder (text-like inputs), then aria-placeholder, as
    // Chromium orders them.
    w.visited.add(el);
    const label = byLabels(el, w);
    if (label !== undefined) return label;
    if (!blank(title())) return title();
    if (!((tag === 'INPUT' && PLACEHOLDER_TYPES.has(input.type)) || tag === 'TEXTAREA')) return '';
    const placeholder = el.getAttribute('placeholder');
    if (!blank(placeholder)) return placeholder ?? '';
    return el.getAttribute('aria-placeholder') || '';
  }
  if ((tag === 'FIELDSET' && role === 'group') || (tag === 'FIGURE' && role === 'figure')) {
    // HTML-AAM §4.1.8 fieldset → first child legend; §4.1.11 figure → figcaption. Only in their own roles: Chromium
    // names <figure role=group> by neither.
    w.visited.add(el);
    return fromChild(el, tag === 'FIELDSET' ? 'LEGEND' : 'FIGCAPTION', child) ?? title();
  }
  if (tag === 'IMG') {
    w.visited.add(el);
    const alt = el.getAttribute('alt') || '';
    return !blank(alt) ? alt : title();
  }
  if (tag === 'TABLE') {
    // HTML-AAM §4.1.9: caption, then summary; otherwise fall through to title.
    w.visited.add(el);
    const caption = fromChild(el, 'CAPTION', child);
    if (caption !== undefined) return caption;
    const summary = el.getAttribute('summary') || '';
    if (summary) return summary;
    return undefined;
  }
  if (el.namespaceURI === SVG_NS) {
    // SVG-AAM §8.1 "Name computation": the first <title> child element of any SVG element (an <svg>, a <g>, a shape),
    // then (as for any element) its content and title.
    for (let ch = el.firstElementChild; ch; ch = ch.nextElementSibling) {
      if (ch.tagName.toUpperCase() === 'TITLE' && ch.namespaceURI === SVG_NS) {
        const t = ch.textContent || '';
        if (!blank(t)) {
          w.visited.add(el);
          return t;
        }
      }
    }
    return undefined;
  }
  if (tag === 'AREA') {
    w.visited.add(el);
    const alt = el.getAttribute('alt') || '';
    return !blank(alt) ? alt : title();
  }
  return undefined;
}

/** accname §4.3.2 step 2F.ii–iii: ::before, children (block-level ones padded with spaces), ::after. */
function contentText(el: Element, w: Walk): string {
  const c = w.c;
  const skipUnrendered = !inHiddenReference(w);
  // An element with no box (display:none, itself or above, reached through a hidden reference) has no ::before or
  // ::after either: Chromium reads only its DOM text.
  const boxed = skipUnrendered || !unrendered(c, el);
  let out = (boxed && cssContent(c, el, '::before')) || '';
  const own = cssContent(c, el, '');
  if (own !== undefined) {
    out += own;
  } else {
    const visit = (n: Node) => {
      if (n.nodeType === 1) {
        const e = n as Element;
        // SVG's <title>, <desc> and <metadata> describe their parent (nativeTextAlternative); they are not its text.
        if (e.namespaceURI === SVG_NS && SVG_NOT_TEXT.has(e.tagName.toLowerCase())) return;
        const display = styleOf(c, e)?.display || 'inline';
        let t = textAlternative(e, w);
        if (display !== 'inline' || e.nodeName === 'BR') t = ` ${t} `;
        out += t;
      } else if (n.nodeType === 3) {
        if (skipUnrendered && textNotRendered(n)) return;
        out += n.nodeValue || '';
      }
    };
    const slot = el.nodeName === 'SLOT' ? (el as HTMLSlotElement).assignedNodes() : [];
    if (slot.length) {
      for (const n of slot) visit(n);
    } else {
      for (let n = el.firstChild; n; n = n.nextSibling) if (!(n as Element).assignedSlot) visit(n);
      if (el.shadowRoot) for (let n = el.shadowRoot.firstChild; n; n = n.nextSibling) visit(n);
      for (const owned of idRefs(el, el.getAttribute('aria-owns'))) visit(owned);
    }
  }
  out += (boxed && cssContent(c, el, '::after')) || '';
  return out;
}

const SVG_NOT_TEXT = new Set(['title', 'desc', 'metadata']);

function textNotRendered(n: Node): boolean {
  const p = n.parentElement;
  if (!p) return false;
  if (p.shadowRoot && !(n as Text).assignedSlot) return true;
  return p.tagName.toUpperCase() === 'DETAILS' && !(p as HTMLDetailsElement).open;
}
