// Resolution rungs answered inside the page: each returns every element that matches, so the caller can tell
// "exactly one" from "ambiguous" from "none" (docs/design/verbs.md, "The six verbs": resolve).
import type { ScopeLink } from '../schema/observation.ts';
import type { FindQuery } from './api.ts';
import { activeModal, isBlocked } from './modal.ts';
import { accessibleName, normalize } from './name.ts';
import { roleOf } from './role.ts';
import { newRowCache, rowKey } from './rows.ts';
import { isHiddenForAria, isIgnoredTag, isRevealable, type DomCache } from './style.ts';
import { SCOPE_LINK_ROLES } from './scopes.ts';
import { hintOf, revealedName } from './walk.ts';


/**
 * A node's children in the flat tree (DOM §4.2.2.3): a shadow host's are its shadow root's, a slot's are the nodes
 * assigned to it (flattened through nested slots) or else its fallback content, anyone else's its own.
 */
function flatChildren(e: Element): Node[] {
  if (e.shadowRoot) return [...e.shadowRoot.childNodes];
  if (e.tagName === 'SLOT') {
    const assigned = (e as HTMLSlotElement).assignedNodes({ flatten: true });
    if (assigned.length) return assigned;
  }
  return [...e.childNodes];
}

/** Every element under the roots in the flat tree: shadow trees, and the light-DOM elements slotted into them. */
function descendants(roots: readonly Element[]): Element[] {
  const out = new Set<Element>();
  const add = (root: Element | ShadowRoot) => {
    for (const e of root.querySelectorAll('*')) {
      out.add(e);
      if (e.shadowRoot) add(e.shadowRoot);
      if (e.tagName === 'SLOT') {
        for (const s of (e as HTMLSlotElement).assignedElements({ flatten: true })) {
          if (out.has(s)) continue;
          out.add(s);
          add(s);
        }
      }
    }
  };
  for (const r of roots) add(r);
  return [...out];
}

/** Containers matching the scope chain; an empty result means the scope itself is not on the page. */
export function scopeRoots(doc: Document, c: DomCache, scope: readonly ScopeLink[]): Element[] {
  let roots: Element[] = doc.documentElement ? [doc.documentElement] : [];
  const rows = newRowCache();
  for (const link of scope) {
    if (link.role === 'frame') continue;
    const want = normalize(link.name);
    const found = descendants(roots).filter((e) => {
      if (link.role === 'row') return rowKey(c, rows, e) === want;
      const role = roleOf(c, e);
      if (!SCOPE_LINK_ROLES[link.role].includes(role)) return false;
      // An unnamed landmark is named by its role (shared/dom/walk.ts).
      const name = accessibleName(c, e);
      return name === want || (link.role === 'landmark' && !name && role === want);
    });
    // Nested matches collapse to the outermost: their descendants are already searched.
    roots = found.filter((e) => !found.some((o) => o !== e && o.contains(e)));
    if (!roots.length) return [];
  }
  return roots;
}

export function findElements(doc: Document, c: DomCache, q: FindQuery): Element[] {
  const modal = activeModal(doc, c);
  // What the walker does not offer (under inert, behind a modal dialog) is not found either.
  return findAll(doc, c, q).filter((e) => !isBlocked(e, modal));
}

function findAll(doc: Document, c: DomCache, q: FindQuery): Element[] {
  const roots = scopeRoots(doc, c, q.scope);
  if (!roots.length) return [];
  // A hover target (q.reveal) is found while still hidden, by the name it will have once shown.
  const shown = (e: Element): boolean => !isHiddenForAria(c, e) || (q.reveal === true && isRevealable(c, e));
  const nameOf = (e: Element): string => (q.reveal === true && isRevealable(c, e) ? revealedName(e, c) : accessibleName(c, e));
  switch (q.rung) {
    case 'role_name': {
      const name = normalize(q.name);
      return descendants(roots).filter((e) => roleOf(c, e) === q.role && shown(e) && nameOf(e) === name);
    }
    case 'label': {
      const hint = normalize(q.value ?? q.name);
      if (!hint) return [];
      return descendants(roots).filter((e) => roleOf(c, e) === q.role && shown(e) && hintOf(e) === hint);
    }
    case 'text': {
      const needle = normalize(q.value);
      if (!needle) return [];
      const out: Element[] = [];
      const texts = new Map<Element, string>();
      // Text a reader can see: hidden subtrees (display:none, visibility:hidden, aria-hidden) contribute nothing.
      const seen = (e: Element): string => {
        let t = texts.get(e);
        if (t === undefined) {
          t = '';
          for (const n of flatChildren(e)) {
            if (n.nodeType === 3) t += n.nodeValue || '';
            else if (n.nodeType === 1 && !isIgnoredTag(n as Element) && !isHiddenForAria(c, n as Element)) {
              t += ` ${seen(n as Element)} `;
            }
          }
          t = normalize(t);
          texts.set(e, t);
        }
        return t;
      };
      // Text is read in the flat tree, as a reader sees it: a shadow root's text, slotted text in its slot, not a
      // host's light child that no slot shows. Descend only into subtrees whose text contains the needle (each
      // element's text is read once, memoised by `seen`); keep the deepest elements that still contain it. A slot is
      // no element a card can name: the text is found at the slotted element, or at the slot's parent.
      const smallest = (e: Element) => {
        let deeper = false;
        for (const n of flatChildren(e)) {
          if (n.nodeType !== 1) continue;
          const ch = n as Element;
          if (isIgnoredTag(ch) || isHiddenForAria(c, ch)) continue;
          if (seen(ch).includes(needle)) {
            smallest(ch);
            deeper = true;
          }
        }
        if (!deeper && e.tagName !== 'SLOT') out.push(e);
        // A slot at the top of a shadow root has no parent element: its host shows the text.
        else if (!deeper) out.push(e.parentElement ?? (e.getRootNode() as ShadowRoot).host ?? e);
      };
      for (const r of roots) if (seen(r).includes(needle)) smallest(r);
      return [...new Set(out)];
    }
    case 'css': {
      if (!q.value) return [];
      try {
        const set = new Set<Element>();
        for (const r of roots) for (const e of r.querySelectorAll(q.value)) set.add(e);
        return [...set];
      } catch {
        return []; // an invalid selector finds nothing; the rung then reports "none"
      }
    }
  }
}
