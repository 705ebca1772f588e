// Secret masking: every value registered as a secret is replaced by `[secret:<name>]` in any text
// before it reaches a file, a log or an output — raw, and in the encodings a page, a URL, a JSON body
// or an HTML document would give it. Pure: runs in Node, the extension worker and pages alike.

/** A typed refusal: a misconfigured secret is an error for the user, never a silent no-op. */
export class SecretError extends Error {
  override readonly name = 'SecretError';
  constructor(
    readonly code: 'SECRET_TOO_SHORT' | 'SECRET_NAME_INVALID',
    message: string,
  ) {
    super(message);
  }
}

/** Masking a one- or two-character value would blank half of every screen and hide a misconfiguration. */
export const MIN_SECRET_LENGTH = 3;

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

/** Hex digits matched in either case: percent-encoding (RFC 3986 §2.1) and \u escapes are case-insensitive. */
const hexRe = (n: number, width: number): string =>
  n
    .toString(16)
    .padStart(width, '0')
    .split('')
    .map((c) => (/[a-f]/.test(c) ? `[${c}${c.toUpperCase()}]` : c))
    .join('');

const HTML_NAMED: Record<string, string[]> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&apos;'],
  '\u00a0': ['&nbsp;'],
};

const JSON_SHORT: Record<string, string[]> = {
  '"': ['\\"'],
  '\\': ['\\\\'],
  '/': ['\\/'], // JSON allows escaping the solidus (RFC 8259 §7); some serialisers do it
  '\b': ['\\b'],
  '\f': ['\\f'],
  '\n': ['\\n'],
  '\r': ['\\r'],
  '\t': ['\\t'],
};

/**
 * One code point as a regex alternation of every spelling it can have: itself, its UTF-8 bytes
 * percent-encoded (encodeURIComponent, WHATWG form encoding), `+` for a space (form encoding),
 * its JSON escapes (short form, \uXXXX, a surrogate pair for astral characters), and its HTML
 * character references (named, decimal, hex; leading zeros allowed as HTML permits).
 * Building the alternation per character covers every mix an encoder produces — e.g. form
 * encoding leaves `*` bare where encodeURIComponent encodes `'` — without enumerating encoders.
 */
function codePointPattern(ch: string): string {
  const cp = ch.codePointAt(0) ?? 0;
  const alts = new Set<string>([escapeRe(ch)]);
  const bytes = new TextEncoder().encode(ch);
  alts.add(Array.from(bytes, (b) => '%' + hexRe(b, 2)).join(''));
  if (ch === ' ') alts.add('\\+');
  for (const s of JSON_SHORT[ch] ?? []) alts.add(escapeRe(s));
  if (cp > 0xffff) {
    const hi = 0xd800 + ((cp - 0x10000) >> 10);
    const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    alts.add(`\\\\u${hexRe(hi, 4)}\\\\u${hexRe(lo, 4)}`);
  } else {
    alts.add(`\\\\u${hexRe(cp, 4)}`);
  }
  for (const s of HTML_NAMED[ch] ?? []) alts.add(escapeRe(s));
  alts.add(`&#0*${cp};`);
  alts.add(`&#[xX]0*${hexRe(cp, 1)};`);
  return `(?:${[...alts].join('|')})`;
}

function secretPattern(value: string): string {
  return Array.from(value, codePointPattern).join('');
}

interface Entry {
  name: string;
  value: string;
}

export class Masker {
  readonly #entries: Entry[] = [];
  #re: RegExp | undefined;
  #names: string[] = [];

  constructor(secrets?: Iterable<{ name: string; value: string }>) {
    for (const s of secrets ?? []) this.add(s.name, s.value);
  }

  /** Registers a secret. Refuses values shorter than MIN_SECRET_LENGTH; the message never carries the value. */
  add(name: string, value: string): void {
    if (!NAME.test(name)) {
      throw new SecretError('SECRET_NAME_INVALID', `secret name ${JSON.stringify(name.slice(0, 64))} must be 1-64 of A-Z a-z 0-9 _ . -`);
    }
    if (value.length < MIN_SECRET_LENGTH) {
      throw new SecretError(
        'SECRET_TOO_SHORT',
        `secret "${name}" is ${value.length === 0 ? 'empty' : `shorter than ${MIN_SECRET_LENGTH} characters`}; refusing to mask it (check how it is supplied)`,
      );
    }
    if (this.#entries.some((e) => e.value === value)) return;
    this.#entries.push({ name, value });
    this.#re = undefined;
  }

  get size(): number {
    return this.#entries.length;
  }

  #regex(): RegExp | undefined {
    if (this.#entries.length === 0) return undefined;
    if (!this.#re) {
      // Longest value first: a regex alternation takes the first branch that matches, so a secret
      // that contains another ("hunter22" vs "hunter2") is masked whole, under its own name.
      const sorted = [...this.#entries].sort((a, b) => b.value.length - a.value.length);
      this.#names = sorted.map((e) => e.name);
      this.#re = new RegExp(sorted.map((e) => `(${secretPattern(e.value)})`).join('|'), 'g');
    }
    return this.#re;
  }

  /** Replaces every occurrence (in any supported encoding) in one left-to-right pass, so a placeholder is never re-masked. */
  mask(text: string): string {
    const re = this.#regex();
    if (!re) return text;
    return text.replace(re, (...args: unknown[]) => {
      const groups = args.slice(1, 1 + this.#names.length);
      const i = groups.findIndex((g) => g !== undefined);
      return `[secret:${this.#names[i] ?? 'unknown'}]`;
    });
  }

  /** True when the text still holds a registered secret in any supported encoding. */
  has(text: string): boolean {
    const re = this.#regex();
    if (!re) return false;
    re.lastIndex = 0;
    const found = re.test(text);
    re.lastIndex = 0;
    return found;
  }

  /**
   * Masks every string inside a JSON-like value: object keys and values, array items. A number
   * whose digits hold a secret (a PIN passed as a number) becomes the masked string. Errors become
   * plain `{name, message, code?}` objects because their message is not enumerable. Cycles are kept.
   */
  maskDeep<T>(value: T): T {
    return this.#deep(value, new WeakMap()) as T;
  }

  #deep(value: unknown, seen: WeakMap<object, unknown>): unknown {
    if (typeof value === 'string') return this.mask(value);
    if (typeof value === 'number' || typeof value === 'bigint') {
      const s = String(value);
      const m = this.mask(s);
      return m === s ? value : m;
    }
    if (value === null || typeof value !== 'object') return value;
    const prior = seen.get(value);
    if (prior !== undefined) return prior;
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      seen.set(value, out);
      for (const item of value) out.push(this.#deep(item, seen));
      return out;
    }
    if (value instanceof Error) {
      const out: Record<string, unknown> = {};
      seen.set(value, out);
      out.name = this.mask(value.name);
      out.message = this.mask(value.message);
      for (const [k, v] of Object.entries(value)) out[this.mask(k)] = this.#deep(v, seen);
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value; // Date, Uint8Array...: not text
    const out: Record<string, unknown> = {};
    seen.set(value, out);
    for (const [k, v] of Object.entries(value)) out[this.mask(k)] = this.#deep(v, seen);
    return out;
  }
}
