// Focusability and disabled state (HTML §6.6.3 focusable areas, §4.10.18.5 "disabled" form controls,
// WAI-ARIA 1.2 aria-disabled), as Chromium applies them.

const NATIVE_CONTROLS = new Set(['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP']);

/** HTML "actually disabled": the attribute, a disabled <optgroup>, or a disabled <fieldset> outside its first legend. */
export function isNativelyDisabled(el: Element): boolean {
  if (!NATIVE_CONTROLS.has(el.tagName.toUpperCase())) return false;
  if (el.hasAttribute('disabled')) return true;
  if (el.tagName.toUpperCase() === 'OPTION' && el.closest('optgroup[disabled]')) return true;
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

/** aria-disabled is inherited down the tree (WAI-ARIA 1.2 §6.6 aria-disabled: "applies to all descendants"). */
export function isDisabled(el: Element): boolean {
  if (isNativelyDisabled(el)) return true;
  for (let e: Element | null = el; e; e = e.parentElement) {
    const v = (e.getAttribute('aria-disabled') || '').toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return false;
}
