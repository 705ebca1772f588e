// CSS selectors for the last and dearest rung, derived from the element itself: its id, its name attribute, a
// submit input's value, a link's href tail. The guard keeps the first that finds exactly this element again.
// Runs in the page (bundled into the walker and the extension's content script): the one place they are derived.

/** A CSS string literal (CSS Syntax §4.3.5: a backslash escapes the quote and itself). */
const cssString = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * An id React's `useId` made (`:r1:`, `«r1»`, `_r_1_`), alone or under a library's prefix — React Aria's
 * `react-aria<random>-_r_1_`, whose number is drawn again at each page load: it names the element in this load only,
 * so it is no rung (a card carried one that never matched again: tests/e2e/real-aria.spec.ts).
 */
const GENERATED_ID = /:r[0-9a-z]*:|«r[0-9a-z]*»|_r_[0-9a-z]*_/;

/** Selectors that might find this element again, most specific first. Only identifiers CSS takes unescaped. */
export function selectorsOf(el: Element): string[] {
  const tag = el.tagName.toLowerCase();
  const out: string[] = [];
  const id = el.getAttribute('id');
  if (id && /^[A-Za-z][\w-]*$/.test(id) && !GENERATED_ID.test(id)) out.push(`#${id}`);
  const name = el.getAttribute('name');
  if (name && /^[\w-]+$/.test(name)) out.push(`${tag}[name=${name}]`);
  const type = el.getAttribute('type');
  const value = el.getAttribute('value');
  if (tag === 'input' && type && value) out.push(`input[type=${type}][value=${cssString(value)}]`);
  const href = el.getAttribute('href');
  if (tag === 'a' && href) {
    // A legacy link's identity is its last query parameter (`?m=400118`); the rest is session noise.
    const tail = href.includes('?') ? (href.slice(href.lastIndexOf('?') + 1).split('&').pop() ?? href) : href;
    out.push(`a[href$=${cssString(tail)}]`);
  }
  return out;
}
