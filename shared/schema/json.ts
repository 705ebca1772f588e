// A strict JSON reader for card files (RFC 8259) that refuses what JSON.parse lets through: a key given twice
// in one object (JSON.parse keeps the last, so `lifecycle.state` could say "approved" below a reviewed
// "draft"), keys that reach an object's prototype (`__proto__`, `constructor`, `prototype`), and sizes nobody
// reviews. Caps are checked while reading, before anything deeper (zod) sees the value, so a hostile file is
// refused in milliseconds with a short message. Pure: runs in Node, the extension worker and pages.

export const LIMITS = {
  /** A whole card file, in characters. Real cards are ~20 KB. */
  maxText: 2_000_000,
  /** One string (key or value), in characters. */
  maxString: 65_536,
  /** One array's items. */
  maxArray: 10_000,
  /** One object's keys. */
  maxKeys: 10_000,
  /** Nesting of objects and arrays (also keeps the reader's own stack small). */
  maxDepth: 64,
} as const;

/** Keys that name a prototype member: never a card's key, never a card's reference. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonFault {
  /** Where in the document, as keys and indexes. */
  path: PropertyKey[];
  message: string;
}

export type JsonRead = { ok: true; value: unknown } | { ok: false; fault: JsonFault };

class Fault extends Error {
  constructor(
    readonly path: PropertyKey[],
    message: string,
  ) {
    super(message);
  }
}

/** A quote of a key for a message: short, whatever the key holds. */
export function quoteKey(key: string, max = 40): string {
  return JSON.stringify(key.length > max ? `${key.slice(0, max)}…` : key);
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parse `text` as strict JSON. Never throws; the fault names the path and (for syntax) the line and column. */
export function readJson(text: string, limits: typeof LIMITS = LIMITS): JsonRead {
  if (text.length > limits.maxText) {
    return { ok: false, fault: { path: [], message: `the file is ${text.length} characters long; at most ${limits.maxText} allowed` } };
  }
  let i = 0;
  const path: PropertyKey[] = [];
  const where = (): string => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    return `line ${line}, column ${i - before.lastIndexOf('\n')}`;
  };
  const fail = (message: string): never => {
    throw new Fault([...path], message);
  };
  const syntax = (what: string): never => fail(`not valid JSON: ${what} at ${where()}`);
  const ws = (): void => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const str = (): string => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) return syntax('a string that never ends');
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c === 0x5c) i += 2;
      else if (c < 0x20) return syntax('a control character inside a string');
      else i++;
      // Far past any legal length even if every character were a \u escape: refuse before decoding.
      if (i - start > limits.maxString * 6 + 2) fail(`a string longer than ${limits.maxString} characters`);
    }
    const raw = text.slice(start, i + 1);
    i++;
    let value: string;
    try {
      value = JSON.parse(raw) as string;
    } catch {
      return syntax('a bad escape in a string');
    }
    if (value.length > limits.maxString) fail(`a string of ${value.length}+ characters; at most ${limits.maxString} allowed`);
    return value;
  };
  const val = (depth: number): unknown => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      if (depth >= limits.maxDepth) fail(`nested deeper than ${limits.maxDepth} levels`);
      return c === '{' ? obj(depth + 1) : arr(depth + 1);
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    return syntax(i >= text.length ? 'the text ends early' : `unexpected ${JSON.stringify(text.slice(i, i + 1))}`);
  };
  const obj = (depth: number): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    ws();
    if (text[i] === '}') {
      i++;
      return out;
    }
    let count = 0;
    for (;;) {
      ws();
      if (text[i] !== '"') syntax('expected a key in double quotes');
      const key = str();
      path.push(key);
      if (RESERVED_KEYS.has(key)) fail(`the key ${quoteKey(key)} is not allowed (it names an object prototype member)`);
      if (Object.hasOwn(out, key)) fail(`the key ${quoteKey(key)} appears twice in one object; say it once`);
      if (++count > limits.maxKeys) fail(`more than ${limits.maxKeys} keys in one object`);
      ws();
      if (text[i] !== ':') syntax('expected ":" after a key');
      i++;
      out[key] = val(depth);
      path.pop();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === '}') {
        i++;
        return out;
      }
      return syntax('expected "," or "}"');
    }
  };
  const arr = (depth: number): unknown[] => {
    i++;
    const out: unknown[] = [];
    ws();
    if (text[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      if (out.length >= limits.maxArray) fail(`more than ${limits.maxArray} items in one array`);
      path.push(out.length);
      out.push(val(depth));
      path.pop();
      ws();
      if (text[i] === ',') {
        i++;
        continue;
      }
      if (text[i] === ']') {
        i++;
        return out;
      }
      return syntax('expected "," or "]"');
    }
  };
  try {
    const value = val(0);
    ws();
    if (i < text.length) syntax('text after the end of the document');
    return { ok: true, value };
  } catch (e) {
    if (e instanceof Fault) return { ok: false, fault: { path: e.path, message: e.message } };
    throw e;
  }
}

/**
 * The same caps and reserved keys for a value that did not come from text (a card handed over already parsed:
 * an extension message, a test). Returns the first fault, or null.
 */
export function checkTree(value: unknown, limits: typeof LIMITS = LIMITS): JsonFault | null {
  const path: PropertyKey[] = [];
  const walk = (v: unknown, depth: number): JsonFault | null => {
    if (typeof v === 'string') {
      return v.length > limits.maxString ? { path: [...path], message: `a string of ${v.length} characters; at most ${limits.maxString} allowed` } : null;
    }
    if (v === null || typeof v !== 'object') return null;
    if (depth >= limits.maxDepth) return { path: [...path], message: `nested deeper than ${limits.maxDepth} levels` };
    if (Array.isArray(v)) {
      if (v.length > limits.maxArray) return { path: [...path], message: `${v.length} items in one array; at most ${limits.maxArray} allowed` };
      for (let k = 0; k < v.length; k++) {
        path.push(k);
        const f = walk(v[k], depth + 1);
        path.pop();
        if (f) return f;
      }
      return null;
    }
    const keys = Object.keys(v);
    if (keys.length > limits.maxKeys) return { path: [...path], message: `${keys.length} keys in one object; at most ${limits.maxKeys} allowed` };
    for (const key of keys) {
      path.push(key);
      if (key.length > limits.maxString) return { path: [...path], message: `a key of ${key.length} characters; at most ${limits.maxString} allowed` };
      if (RESERVED_KEYS.has(key)) return { path: [...path], message: `the key ${quoteKey(key)} is not allowed (it names an object prototype member)` };
      const f = walk((v as Record<string, unknown>)[key], depth + 1);
      path.pop();
      if (f) return f;
    }
    return null;
  };
  return walk(value, 0);
}
