// Per-observation caches over computed style and ARIA visibility. The walker calls getComputedStyle only on
// candidates (controls, furniture, name-from-content subtrees), never on every element of the page.

export interface DomCache {
  style: Map<Element, CSSStyleDeclaration | undefined>;
  before: Map<Element, string | undefined>;
  after: Map<Element, string | undefined>;
  /** Per document or shadow root: whether any of its style sheets could give an element ::before/::after content. */
  pseudo: Map<Node, boolean>;
  hiddenChain: Map<Element, boolean>;
  ariaHidden: Map<Element, boolean>;
  hidden: Map<Element, boolean>;
  role: Map<Element, string>;
  /** The presentational role an element passes down to its required owned elements, '' for none (role.ts). */
  presentation: Map<Element, string>;
  name: Map<Element, string>;
  /** isRevealable's answers: they read the element's own style, layout and aria-hidden chain, never another
   *  element's lifted hidden-ness, so a lifted cache (liftedCache) shares them. */
  revealable: Map<Element, boolean>;
  /** Per document or shadow root: each labeled control's <label>s in tree order (name.ts labelsOf). */
  labels: Map<Node, Map<Element, HTMLLabelElement[]>>;
  /** Per document or shadow root: the selectors that set `visibility` under :hover or :focus-within (shownByPointer). */
  pointerRules: Map<Node, PointerRule[]>;
}

export function newCache(): DomCache {
  return {
    style: new Map(),
    before: new Map(),
    after: new Map(),
    pseudo: new Map(),
    hiddenChain: new Map(),
    ariaHidden: new Map(),
    hidden: new Map(),
    role: new Map(),
    presentation: new Map(),
    name: new Map(),
    revealable: new Map(),
    labels: new Map(),
    pointerRules: new Map(),
  };
}

/**
 * A cache for the same walk in which some elements' hidden-ness will be lifted (shared/dom/walk.ts revealedName): it
 * starts its own `hidden` and `name` maps, the only answers a lift can change (a display:contents element's
 * hidden-ness follows its children's; a name follows hidden-ness), and shares every other map, whose answers depend
 * on the element alone: computed style, pseudo content, the display:none and aria-hidden chains, roles, revealability,
 * labels.
 */
export function liftedCache(c: DomCache): DomCache {
  return { ...c, hidden: new Map(), name: new Map() };
}

export function styleOf(c: DomCache, el: Element): CSSStyleDeclaration | undefined {
  if (c.style.has(el)) return c.style.get(el);
  const view = el.ownerDocument.defaultView;
  const s = view ? view.getComputedStyle(el) : undefined;
  c.style.set(el, s);
  return s;
}

/**
 * Parent in the flat tree (DOM §4.2.2.3 "flat tree"; the accessibility tree follows it): the slot an element is
 * assigned to, else its parent element, crossing an open shadow root boundary to its host.
 */
export function parentOf(el: Element): Element | null {
  if (el.assignedSlot) return el.assignedSlot;
  if (el.parentElement) return el.parentElement;
  const p = el.parentNode;
  if (p && p.nodeType === 11 && (p as ShadowRoot).host) return (p as ShadowRoot).host;
  return null;
}

// Both spellings: HTML elements' tagName is upper case, SVG's (<svg><style>) lower case.
const IGNORED = new Set(['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE', 'style', 'script', 'noscript', 'template']);

export function isIgnoredTag(el: Element): boolean {
  return IGNORED.has(el.tagName);
}

/** `isIgnoredTag` for a tag name the caller has read already (an element's `tagName`, which is its `nodeName`). */
export function isIgnoredName(tag: string): boolean {
  return IGNORED.has(tag);
}

/** aria-hidden="true" on the element or a flat-tree ancestor (no style read). */
function inAriaHiddenChain(c: DomCache, el: Element): boolean {
  const cached = c.ariaHidden.get(el);
  if (cached !== undefined) return cached;
  let hidden = (el.getAttribute('aria-hidden') || '').toLowerCase() === 'true';
  if (!hidden) {
    const p = parentOf(el);
    if (p) hidden = inAriaHiddenChain(c, p);
  }
  c.ariaHidden.set(el, hidden);
  return hidden;
}

/** display:none or aria-hidden="true" on the element or any ancestor (WAI-ARIA 1.2 §aria-hidden, HTML "hidden"). */
function inHiddenChain(c: DomCache, el: Element): boolean {
  const cached = c.hiddenChain.get(el);
  if (cached !== undefined) return cached;
  let hidden = (el.getAttribute('aria-hidden') || '').toLowerCase() === 'true';
  if (!hidden) {
    const s = styleOf(c, el);
    hidden = !s || s.display === 'none';
  }
  if (!hidden) {
    const p = parentOf(el);
    if (p) hidden = inHiddenChain(c, p);
  }
  c.hiddenChain.set(el, hidden);
  return hidden;
}

/**
 * Without a box because of `display: none`, on the element or a flat-tree ancestor (CSS Display §2.7): it generates
 * no ::before or ::after. `display: contents` has no box of its own but generates its pseudo-elements; it is not this.
 */
export function unrendered(c: DomCache, el: Element): boolean {
  if (el.checkVisibility()) return false;
  for (let e: Element | null = el; e; e = parentOf(e)) {
    const s = styleOf(c, e);
    if (!s || s.display === 'none') return true;
  }
  return false;
}

/** CSSOM View `checkVisibility({visibilityProperty: true})`: false without a box, under content-visibility:hidden,
 *  or when the computed visibility is not `visible` — `checkVisibility() && visibility === 'visible'` in one call.
 *  `checkVisibilityCSS` is the same option's first name, the one Chrome 105–120 reads (the extension runs there too). */
const SHOWN: CheckVisibilityOptions = { visibilityProperty: true, checkVisibilityCSS: true };

/** The image that uses the area's map (`usemap="#name"`, matched ASCII case-insensitively as HTML says), if any. */
function mapImageOf(area: Element): Element | null {
  const map = area.closest('map');
  const name = (map?.getAttribute('name') || map?.id || '').toLowerCase();
  if (!name) return null;
  for (const img of area.ownerDocument.querySelectorAll('img[usemap]')) {
    if ((img.getAttribute('usemap') || '').toLowerCase() === `#${name}`) return img;
  }
  return null;
}

/**
 * Excluded from the accessibility tree (WAI-ARIA 1.2 §4.3 "Excluding Elements from the Accessibility Tree"):
 * display:none, visibility:hidden/collapse, aria-hidden="true", the `hidden` attribute (UA display:none).
 * Elements with `display: contents` are hidden only when all their children are (they have no box of their own).
 * Options of a <select> are never hidden by style (Chromium exposes closed dropdown options).
 */
export function isHiddenForAria(c: DomCache, el: Element, tag?: string): boolean {
  const cached = c.hidden.get(el);
  if (cached !== undefined) return cached;
  // The element's name, read once (DOM §4.9: an element's nodeName is its tagName), or the caller's reading of it.
  const name = tag ?? el.nodeName;
  let hidden: boolean;
  if (IGNORED.has(name)) {
    hidden = true;
  } else if (name === 'AREA') {
    // An <area> has no box of its own: the <img> that uses its <map> draws it (HTML §4.8.14 "Image maps"), and
    // Chromium exposes it as a link while that image is shown. checkVisibility() on the area itself answers
    // differently across Chromium builds (true in 156.0.8078.73, false in .129), so the image is asked instead.
    const img = mapImageOf(el);
    hidden = !img || isHiddenForAria(c, img) || inAriaHiddenChain(c, el);
  } else if (name !== 'SLOT' && name !== 'OPTION' && el.checkVisibility(SHOWN)) {
    // The common case in one native call (docs/design/walker.md, "The walker"): a box that is laid out and
    // visibility:visible is neither display:contents (no box) nor display:none (self or flat-tree ancestor) nor
    // visibility:hidden/collapse, so the branches below would answer with the aria-hidden chain alone; no computed
    // style is read for it.
    hidden = inAriaHiddenChain(c, el);
  } else {
    const s = styleOf(c, el);
    if (name === 'SLOT') {
      // A slot is display:contents by default and has no box, so checkVisibility() is false for it even when its
      // assigned nodes render; it is hidden only by its ancestors (its assigned nodes answer for themselves).
      hidden = inHiddenChain(c, el) || (!!s && s.display === 'none');
    } else if (s && s.display === 'contents') {
      hidden = true;
      for (let ch = el.firstElementChild; ch; ch = ch.nextElementSibling) {
        if (!isHiddenForAria(c, ch)) {
          hidden = false;
          break;
        }
      }
      if (hidden) {
        for (let n = el.firstChild; n; n = n.nextSibling) {
          if (n.nodeType === 3 && (n.nodeValue || '').trim()) {
            hidden = false;
            break;
          }
        }
      }
    } else {
      const optionInSelect = name === 'OPTION' && !!el.closest('select');
      // Past a failed checkVisibility(SHOWN) above (anything but a slot or an option), `checkVisibility() &&
      // visibility === 'visible'` is already known false: it is not asked again.
      const styleVisible = !s || (name !== 'OPTION' ? false : el.checkVisibility() && s.visibility === 'visible');
      // checkVisibility() already fails under a display:none flat-tree ancestor, so a visible element needs only
      // the aria-hidden chain; an option of a closed <select> has no box and needs the display chain too.
      if (optionInSelect) hidden = inHiddenChain(c, el);
      else hidden = !styleVisible || inAriaHiddenChain(c, el);
    }
  }
  c.hidden.set(el, hidden);
  return hidden;
}

/**
 * Hidden only by `visibility: hidden` while laid out (it has a box): the pattern of actions a row shows on hover or
 * focus (`.row:hover .actions { visibility: visible }`). Such a control is offered to be hovered, never pressed
 * while hidden (docs/design/verbs.md, "The six verbs": hover). CSS 2.2 §11.2: a visibility:hidden box still takes
 * up space, and `checkVisibility()` without `visibilityProperty` still answers true for it.
 */
export function isRevealable(c: DomCache, el: Element): boolean {
  const known = c.revealable.get(el);
  if (known !== undefined) return known;
  let out = false;
  if (isHiddenForAria(c, el)) {
    const s = styleOf(c, el);
    out = !!s && s.visibility === 'hidden' && el.checkVisibility() && hasClientRects(el, s) && !inAriaHiddenChain(c, el);
  }
  c.revealable.set(el, out);
  return out;
}

const POINTER_STATE = /:(?:hover|focus-within)(?![\w-])/i;
const POINTER_STATES = /:(?:hover|focus-within)(?![\w-])/gi;

/** A selector list split at its top-level commas (not one inside :is(…), [attr="a,b"] or escaped as `\,`). */
function selectorParts(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote = '';
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const ch = list[i];
    if (ch === '\\') i++;
    else if (quote) {
      if (ch === quote) quote = '';
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '(' || ch === '[') depth++;
    else if (ch === ')' || ch === ']') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(list.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(list.slice(start).trim());
  return parts;
}

/** A nested rule's selector made whole (CSS Nesting §3: `&` is the parent; without one, a descendant of it). */
function nestedIn(child: string, parent: string): string {
  return selectorParts(child)
    .map((part) => (part.includes('&') ? part.replaceAll('&', `:is(${parent})`) : `:is(${parent}) ${part}`))
    .join(', ');
}

/** A rule that reveals under the pointer or the focus: its selector with those states taken out, and its media. */
export interface PointerRule {
  selector: string;
  media: readonly string[];
}

function pushPointerRule(selectorList: string, media: readonly string[], out: PointerRule[]): void {
  for (const part of selectorParts(selectorList)) {
    if (!POINTER_STATE.test(part)) continue;
    const selector = part.replace(POINTER_STATES, '').trim();
    if (selector) out.push({ selector, media });
  }
}

function collectPointerRules(rules: CSSRuleList, parent: string, media: readonly string[], out: PointerRule[]): void {
  for (const rule of rules) {
    if ('selectorText' in rule) {
      const r = rule as CSSStyleRule;
      const selector = parent ? nestedIn(r.selectorText, parent) : r.selectorText;
      if (r.style.getPropertyValue('visibility') && POINTER_STATE.test(selector)) pushPointerRule(selector, media, out);
      if (r.cssRules?.length) collectPointerRules(r.cssRules, selector, media, out);
    } else if ('style' in rule && !('cssRules' in rule)) {
      // Declarations nested after rules or inside an @media within a style rule (CSSNestedDeclarations): the
      // enclosing rule's selector applies (Tailwind 4 writes `group-hover:visible` so).
      const style = (rule as CSSRule & { style: CSSStyleDeclaration }).style;
      if (parent && style.getPropertyValue('visibility') && POINTER_STATE.test(parent)) pushPointerRule(parent, media, out);
    } else if ('media' in rule && 'cssRules' in rule) {
      const m = rule as CSSMediaRule;
      collectPointerRules(m.cssRules, parent, [...media, m.media.mediaText], out);
    } else if ('cssRules' in rule) {
      collectPointerRules((rule as CSSGroupingRule).cssRules, parent, media, out);
    } else if ('styleSheet' in rule && (rule as CSSImportRule).styleSheet) {
      try {
        collectPointerRules((rule as CSSImportRule).styleSheet!.cssRules, parent, media, out);
      } catch {
        // A cross-origin sheet's rules cannot be read: what it reveals counts as furniture, as before.
      }
    }
  }
}

/** Each sheet's pointer rules, read again only when its number of rules changed (a page's sheets rarely change). */
const sheetPointerRules = new WeakMap<CSSStyleSheet, { count: number; rules: PointerRule[] }>();

function pointerRulesOf(c: DomCache, root: Node): PointerRule[] {
  let rules = c.pointerRules.get(root);
  if (rules) return rules;
  rules = [];
  const r = root as Document | ShadowRoot;
  for (const sheet of [...(r.styleSheets ?? []), ...(r.adoptedStyleSheets ?? [])]) {
    try {
      const count = sheet.cssRules.length;
      let known = sheetPointerRules.get(sheet);
      if (!known || known.count !== count) {
        known = { count, rules: [] };
        collectPointerRules(sheet.cssRules, '', [], known.rules);
        sheetPointerRules.set(sheet, known);
      }
      rules.push(...known.rules);
    } catch {
      // Cross-origin: unreadable, as above.
    }
  }
  c.pointerRules.set(root, rules);
  return rules;
}

/**
 * Whether a row's control is one the pointer or the focus in its row shows: an author rule under :hover or
 * :focus-within that sets `visibility` would apply to it, or to an ancestor of it inside the row, were the row
 * hovered (the same hiding isRevealable lifts). Such a control is not the screen's furniture (docs/design/walker.md,
 * "The walker"): where the clerk's pointer happens to rest must not change the screen's signature. The answer is the
 * same whether the pointer is there or not (the rule's selector is matched with those states taken out); rules are
 * read in each tree from the control's up to the row's (a document rule may reveal a host in the row).
 */
export function shownByPointer(c: DomCache, el: Element, row: Element): boolean {
  const view = el.ownerDocument.defaultView;
  let node: Element | null = el;
  while (node) {
    const root = node.getRootNode();
    for (const rule of pointerRulesOf(c, root)) {
      if (rule.media.length && !rule.media.every((m) => view?.matchMedia(m).matches !== false)) continue;
      let hit: Element | null = null;
      try {
        hit = node.closest(rule.selector);
      } catch {
        // A selector matches() cannot take (a pseudo-element, `:not()` emptied by taking a state out): it reveals nothing.
      }
      if (hit && inside(hit, row)) return true;
    }
    node = root instanceof ShadowRoot && inside(root.host, row) ? root.host : null;
  }
  return false;
}

/** Whether `node` is `row` or inside it in the flat tree (a slot's assigned nodes, a shadow root's host). */
function inside(node: Node, row: Element): boolean {
  for (let at: Node | null = node; at; at = (at instanceof Element ? at.assignedSlot : null) ?? at.parentNode ?? (at instanceof ShadowRoot ? at.host : null)) {
    if (at === row) return true;
  }
  return false;
}

/** Display types whose element, once it has a box at all, is one CSS box (CSS Display 3 §2: block containers, flex and
 *  grid containers, atomic inlines, tables) and so has at least one client rect (CSSOM View §6.1 getClientRects: one
 *  per box fragment). Only a plain inline box is asked: the rects of its line fragments are read from layout. */
const BOXED = new Set([
  'block', 'inline-block', 'flow-root', 'list-item', 'flex', 'inline-flex', 'grid', 'inline-grid', 'table', 'inline-table',
]);

/** `getClientRects().length > 0` for an element known to have a box (checkVisibility() true). */
function hasClientRects(el: Element, s: CSSStyleDeclaration): boolean {
  return BOXED.has(s.display) || el.getClientRects().length > 0;
}

/**
 * CSS generated content as text (accname 1.2 §4.3.2 step 2F.ii; CSS Generated Content §content).
 * Only strings and attr() are text; anything else (url(), counters) has no text unless an alt text follows `/`.
 * For the element itself (no pseudo) only the alt-text form counts, as in Chromium.
 */
export function cssContent(c: DomCache, el: Element, pseudo: '::before' | '::after' | ''): string | undefined {
  const cache = pseudo === '::before' ? c.before : pseudo === '::after' ? c.after : undefined;
  if (cache && cache.has(el)) return cache.get(el);
  // A pseudo-element's computed style is dear; where no author rule names ::before/::after there is none to read
  // (the UA's own, such as <q>'s quotes, are not strings and give no text).
  if (pseudo && !mayHavePseudo(c, el)) return undefined;
  const view = el.ownerDocument.defaultView;
  const s = pseudo ? view?.getComputedStyle(el, pseudo) : styleOf(c, el);
  let out: string | undefined;
  if (s) {
    const value = s.content;
    if (value && value !== 'none' && value !== 'normal' && s.display !== 'none' && s.visibility !== 'hidden') {
      out = parseContent(el, value, pseudo !== '');
      // A block pseudo-element, and one with alternative text (`content: "★" / "Starred"`), stand apart from the
      // element's text in Chromium's names ("Starred Star").
      const alone = (s.display || 'inline') !== 'inline' || /["')]\s*\/\s*["']/.test(value);
      if (pseudo && out !== undefined && alone) out = ` ${out} `;
    }
  }
  cache?.set(el, out);
  return out;
}

// One token of the `content` property (CSS Generated Content §1 "content"): a string, a function with its arguments
// (attr(), counter(), counters(), url(), an image function; strings inside may hold spaces and parentheses), the slash
// before alternative text, or a keyword.
const CONTENT_TOKEN = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([\w-]+)\(((?:[^()"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')*)\)|(\/)|([^\s"'/]+))/gy;

function unescapeCss(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})\s?|\\(.)/g, (_m, hex: string | undefined, ch: string | undefined) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : (ch ?? ''),
  );
}

/**
 * The text one token of `content` gives, as Chromium reads generated content into a name: a string and attr() their
 * text; counter() and counters() nothing (Chromium leaves the number out, "1. " reads ". "); an image (url(), a
 * gradient) one space; open-quote and close-quote the first pair of the element's `quotes` (“ ” by default);
 * no-open-quote and no-close-quote nothing (keywordText).
 */
function tokenText(el: Element, fn: string, args: string): string {
  switch (fn.toLowerCase()) {
    case 'attr': {
      const name = /^\s*([\w-]+)/.exec(args)?.[1];
      return name ? el.getAttribute(name) || '' : '';
    }
    case 'counter':
    case 'counters':
      return '';
    default:
      return ' ';
  }
}

/** A keyword's text; undefined for one that is not content (an unknown one): then nothing is read from the property. */
function keywordText(word: string, quotes: readonly string[]): string | undefined {
  switch (word.toLowerCase()) {
    case 'open-quote':
      return quotes[0] ?? '';
    case 'close-quote':
      return quotes[1] ?? '';
    case 'no-open-quote':
    case 'no-close-quote':
      return '';
    default:
      return undefined;
  }
}

/** The first pair of an element's computed `quotes` (CSS Generated Content §3), “ ” where it is `auto`. */
function quotePair(el: Element): readonly string[] {
  const q = el.ownerDocument.defaultView?.getComputedStyle(el).quotes ?? 'auto';
  const strings = [...q.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g)].map((m) => unescapeCss(m[1] ?? m[2] ?? ''));
  return strings.length >= 2 ? strings : ['\u201c', '\u201d'];
}

function parseContent(el: Element, value: string, isPseudo: boolean): string | undefined {
  const parts: Array<{ text: string } | { slash: true } | { other: true }> = [];
  let quotes: readonly string[] | undefined;
  CONTENT_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CONTENT_TOKEN.exec(value)) !== null) {
    if (m[1] !== undefined) parts.push({ text: unescapeCss(m[1]) });
    else if (m[2] !== undefined) parts.push({ text: unescapeCss(m[2]) });
    else if (m[3] !== undefined) parts.push({ text: tokenText(el, m[3], m[4] ?? '') });
    else if (m[5] !== undefined) parts.push({ slash: true });
    else if (m[6] !== undefined) {
      const t = keywordText(m[6], (quotes ??= quotePair(el)));
      parts.push(t === undefined ? { other: true } : { text: t });
    }
    if (CONTENT_TOKEN.lastIndex >= value.length) break;
  }
  const slash = parts.findIndex((p) => 'slash' in p);
  let use = parts;
  if (slash !== -1) use = parts.slice(slash + 1);
  else if (!isPseudo) return undefined;
  let out = '';
  for (const p of use) {
    if ('text' in p) out += p.text;
    else return undefined;
  }
  return out;
}

const PSEUDO_SELECTOR = /:(?::)?(?:before|after)\b/i;

function rulesMention(rules: CSSRuleList): boolean {
  for (const rule of rules) {
    if ('selectorText' in rule && PSEUDO_SELECTOR.test(String((rule as CSSStyleRule).selectorText))) return true;
    if ('cssRules' in rule && rulesMention((rule as CSSGroupingRule).cssRules)) return true;
    // An @import brings its sheet's rules in (CSSOM §6.4.5 CSSImportRule.styleSheet); one still loading has none yet.
    // An imported sheet whose rules cannot be read (cross-origin) counts as could, as a top-level one does.
    if ('styleSheet' in rule && (rule as CSSImportRule).styleSheet) {
      try {
        if (rulesMention((rule as CSSImportRule).styleSheet!.cssRules)) return true;
      } catch {
        return true;
      }
    }
  }
  return false;
}

/** Whether the style sheets of the element's document or shadow root could give it ::before/::after content
 *  (a sheet whose rules cannot be read, such as a cross-origin one, counts as could). */
function mayHavePseudo(c: DomCache, el: Element): boolean {
  const root = el.getRootNode() as Document | ShadowRoot;
  const hit = c.pseudo.get(root);
  if (hit !== undefined) return hit;
  let may = false;
  const sheets = [...(root.styleSheets ?? []), ...(root.adoptedStyleSheets ?? [])];
  for (const sheet of sheets) {
    try {
      if (rulesMention(sheet.cssRules)) may = true;
    } catch {
      may = true;
    }
    if (may) break;
  }
  // Each root answers for its own elements: a document's selectors do not match inside a shadow tree, nor a
  // shadow tree's outside it (slotted light-DOM elements have the document as root). Not seen: a document rule
  // `::part(x)::before` styling a shadow element.
  c.pseudo.set(root, may);
  return may;
}
