// CSS selectors for the last and dearest rung, derived from the element itself (its id, its name attribute,
// a button's value, a link's href tail). The guard keeps the first that finds exactly this element.
import type { Page } from 'playwright-core';
import { parseRef } from '../../shared/ref.ts';
import { frameAt } from '../browser/frames.ts';

// Plain JavaScript, sent as text: a transpiled function would carry the bundler's helpers (__name) into the page.
const IN_PAGE = `function (local) {
  var api = globalThis.__handrail;
  var el = api ? api.element(local) : null;
  if (!el) return [];
  function q(s) { return "'" + s.replace(/\\\\/g, '\\\\\\\\').replace(/'/g, "\\\\'") + "'"; }
  var tag = el.tagName.toLowerCase();
  var out = [];
  var id = el.getAttribute('id');
  if (id && /^[A-Za-z][\\w-]*$/.test(id)) out.push('#' + id);
  var name = el.getAttribute('name');
  if (name && /^[\\w-]+$/.test(name)) out.push(tag + '[name=' + name + ']');
  var type = el.getAttribute('type');
  var value = el.getAttribute('value');
  if (tag === 'input' && type && value) out.push('input[type=' + type + '][value=' + q(value) + ']');
  var href = el.getAttribute('href');
  if (tag === 'a' && href) {
    var tail = href.indexOf('?') >= 0 ? href.slice(href.lastIndexOf('?') + 1).split('&').pop() : href;
    out.push('a[href$=' + q(tail) + ']');
  }
  return out;
}`;

export function selectorsFor(page: Page): (ref: string) => Promise<string[]> {
  return async (ref: string) => {
    const parts = parseRef(ref);
    const frame = parts ? await frameAt(page, parts.frame) : null;
    if (!parts || !frame) return [];
    return (await frame.evaluate(`(${IN_PAGE})(${JSON.stringify(parts.local)})`)) as string[];
  };
}
