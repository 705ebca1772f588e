// Focusability and disabled state (HTML §6.6.3 focusable areas, §4.10.18.5 "disabled" form controls,
// WAI-ARIA 1.2 aria-disabled), as Chromium applies them.

const NATIVE_CONTROLS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP']);

/** HTML "actually disabled": the attribute, a disabled <optgroup>, or a disabled <fieldset> outside its first legend. */
export function isNativelyDisabled(el: Element, upperTag?: string): boolean {
  // `upperTag`: the element's tag name upper-cased, when the caller has it (shared/dom/role.ts upper).
  const tag = upperTag ?? el.tagName.toUpperCase();
  if (!NATIVE_CONTROLS.has(tag)) return false;
  if (el.hasAttribute('disabled')) return true;
  if (tag === 'OPTION' && el.closest('optgroup[disabled]')) return true;
  const fs = el.closest('fieldset[disabled]');
  if (!fs) return false;
  const legend = fs.querySelector(':scope > legend');
  return !legend || !legend.contains(el);
}

function isNativelyFocusable(el: Element): boolean {
  const tag = el.tagName.toUpperCase();
  if (tag === 'BUTTON' || tag === 'DETAILS' || tag === 'SELECT' || tag === 'TEXTAREA') return true;
  if (tag === 'A' || tag === 'AREA') return el.hasAttribute('href');
  if (tag === 'INPUT') return !(el as HTMLInputElement).hidden;
  return false;
}

export function isFocusableForRole(el: Element, hasTabIndex: boolean): boolean {
  return !isNativelyDisabled(el) && (isNativelyFocusable(el) || hasTabIndex);
}

/**
 * aria-disabled is inherited down the tree (WAI-ARIA 1.2 §6.6 aria-disabled: "applies to all descendants"): the
 * nearest ancestor-or-self saying true or false decides. `memo` keeps each element's inherited answer for one walk,
 * so a page of controls reads each ancestor's attribute once (docs/design/walker.md, "The walker").
 */
export function isDisabled(el: Element, memo?: Map<Element, boolean>, upperTag?: string, inherited?: boolean): boolean {
  // `inherited`: the element's aria-disabled answer when the caller knows it already (`ariaDisabledBelow`).
  return isNativelyDisabled(el, upperTag) || (inherited ?? ariaDisabled(el, memo));
}

/**
 * The element's inherited aria-disabled answer, given its parent element's (`fromParent`; false for an element with
 * no parent element, undefined when not known): its own true or false decides, else its parent's answer is its own.
 * The walk carries it down to each child whose parent element is the one it came from (docs/design/walker.md, "The
 * walker"), so no control climbs its ancestors for it.
 */
export function ariaDisabledBelow(el: Element, fromParent: boolean | undefined): boolean | undefined {
  const v = ownAriaDisabled(el);
  return v === 'true' ? true : v === 'false' ? false : fromParent;
}

function ownAriaDisabled(el: Element): string {
  return (el.getAttribute('aria-disabled') || '').toLowerCase();
}

function ariaDisabled(el: Element, memo: Map<Element, boolean> | undefined): boolean {
  const known = memo?.get(el);
  if (known !== undefined) return known;
  const v = ownAriaDisabled(el);
  let out = false;
  if (v === 'true') out = true;
  else if (v !== 'false') {
    const p = el.parentElement;
    out = p ? ariaDisabled(p, memo) : false;
  }
  memo?.set(el, out);
  return out;
}
