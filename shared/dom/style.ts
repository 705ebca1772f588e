// Per-observation caches over computed style and ARIA visibility. The walker calls getComputedStyle only on
// candidates (controls, furniture, name-from-content subtrees), never on every element of the page.

export interface DomCache {
  style: Map<Element, CSSStyleDeclaration | undefined>;
  before: Map<Element, string | undefined>;
  after: Map<Element, string | undefined>;
  hiddenChain: Map<Element, boolean>;
  hidden: Map<Element, boolean>;
  role: Map<Element, string>;
  name: Map<Element, string>;
}

export function newCache(): DomCache {
  return {
    style: new Map(),
    before: new Map(),
    after: new Map(),
    hiddenChain: new Map(),
    hidden: new Map(),
    role: new Map(),
    name: new Map(),
  };
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

const IGNORED = new Set(['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE']);

export function isIgnoredTag(el: Element): boolean {
  return IGNORED.has(el.tagName.toUpperCase());
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
 * Excluded from the accessibility tree (WAI-ARIA 1.2 §4.3 "Excluding Elements from the Accessibility Tree"):
 * display:none, visibility:hidden/collapse, aria-hidden="true", the `hidden` attribute (UA display:none).
 * Elements with `display: contents` are hidden only when all their children are (they have no box of their own).
 * Options of a <select> are never hidden by style (Chromium exposes closed dropdown options).
 */
export function isHiddenForAria(c: DomCache, el: Element): boolean {
  const cached = c.hidden.get(el);
  if (cached !== undefined) return cached;
  let hidden: boolean;
  if (isIgnoredTag(el)) {
    hidden = true;
  } else {
    const s = styleOf(c, el);
    if (el.nodeName === 'SLOT') {
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
      const optionInSelect = el.nodeName === 'OPTION' && !!el.closest('select');
      const styleVisible = !s || (el.checkVisibility() && s.visibility === 'visible');
      hidden = (!optionInSelect && !styleVisible) || inHiddenChain(c, el);
    }
  }
  c.hidden.set(el, hidden);
  return hidden;
}

/**
 * CSS generated content as text (accname 1.2 §4.3.2 step 2F.ii; CSS Generated Content §content).
 * Only strings and attr() are text; anything else (url(), counters) has no text unless an alt text follows `/`.
 * For the element itself (no pseudo) only the alt-text form counts, as in Chromium.
 */
export function cssContent(c: DomCache, el: Element, pseudo: '::before' | '::after' | ''): string | undefined {
  const cache = pseudo === '::before' ? c.before : pseudo === '::after' ? c.after : undefined;
  if (cache && cache.has(el)) return cache.get(el);
  const view = el.ownerDocument.defaultView;
  const s = pseudo ? view?.getComputedStyle(el, pseudo) : styleOf(c, el);
  let out: string | undefined;
  if (s) {
    const value = s.content;
    if (value && value !== 'none' && value !== 'normal' && s.display !== 'none' && s.visibility !== 'hidden') {
      out = parseContent(el, value, pseudo !== '');
      if (pseudo && out !== undefined && (s.display || 'inline') !== 'inline') out = ` ${out} `;
    }
  }
  cache?.set(el, out);
  return out;
}

const CONTENT_TOKEN = /\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|attr\(\s*([\w-]+)\s*\)|(\/)|(\S+))/gy;

function unescapeCss(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})\s?|\\(.)/g, (_m, hex: string | undefined, ch: string | undefined) =>
    hex ? String.fromCodePoint(parseInt(hex, 16)) : (ch ?? ''),
  );
}

function parseContent(el: Element, value: string, isPseudo: boolean): string | undefined {
  const parts: Array<{ text: string } | { slash: true } | { other: true }> = [];
  CONTENT_TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = CONTENT_TOKEN.exec(value)) !== null) {
    if (m[1] !== undefined) parts.push({ text: unescapeCss(m[1]) });
    else if (m[2] !== undefined) parts.push({ text: unescapeCss(m[2]) });
    else if (m[3] !== undefined) parts.push({ text: el.getAttribute(m[3]) || '' });
    else if (m[4] !== undefined) parts.push({ slash: true });
    else if (m[5] !== undefined) parts.push({ other: true });
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
