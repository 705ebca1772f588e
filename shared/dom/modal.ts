// What a user cannot reach: content under `inert` (HTML §6.3 "inert subtrees") and everything outside the active
// modal dialog — a <dialog> opened with showModal() (HTML §4.11.4: the rest of the document is inert) or a visible
// dialog with aria-modal="true" (WAI-ARIA 1.2 §6.6 aria-modal). Such controls are not offered and not found.
// Chromium prunes inert content and the outside of a modal <dialog> from its accessibility tree but keeps the
// outside of an aria-modal dialog; the walker leaves both out, since a click there cannot land.
import { roleOf } from './role.ts';
import { isHiddenForAria, parentOf, type DomCache } from './style.ts';

/** The dialog the page is confined to, or null. A modal <dialog> wins over an aria-modal one; among aria-modal
 *  dialogs, the one holding focus, else the last in document order (the one opened last, as apps stack them). */
export function activeModal(doc: Document, c: DomCache): Element | null {
  const modal = [...doc.querySelectorAll('dialog')].filter((d) => d.matches(':modal'));
  const top = modal[modal.length - 1];
  if (top) return top;
  const aria = [...doc.querySelectorAll('[aria-modal]')].filter(
    (e) => (e.getAttribute('aria-modal') || '').toLowerCase() === 'true' &&
      ['dialog', 'alertdialog'].includes(roleOf(c, e)) && !isHiddenForAria(c, e),
  );
  if (!aria.length) return null;
  const focused = doc.activeElement;
  return aria.find((d) => !!focused && d.contains(focused)) ?? aria[aria.length - 1] ?? null;
}

/** Under `inert`, or outside `modal` (when there is one): the flat-tree ancestors decide. */
export function isBlocked(el: Element, modal: Element | null): boolean {
  let inModal = modal === null;
  for (let e: Element | null = el; e; e = parentOf(e)) {
    if (e.hasAttribute('inert')) return true;
    if (e === modal) inModal = true;
  }
  return !inModal;
}
