// Secret masking: every value registered as a secret is replaced by `[secret:<name>]` in any text
// before it reaches a file, a log or an output — raw, and in the encodings a page, a URL, a JSON body
// or an HTML document would give it. Pure: runs in Node, the extension worker and pages alike.
import { HandrailError } from './errors.ts';

/** A typed refusal: a misconfigured secret is an error for the user, never a silent no-op. */
export class SecretError extends HandrailError<'SECRET_TOO_SHORT' | 'SECRET_NAME_INVALID'> {
  override readonly name = 'SecretError';
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

/**
 * Zero-width and control characters (Unicode Cc and Cf: ZWSP, ZWJ, word joiner, BOM, soft hyphen, bidi marks)
 * that someone may put inside a secret to slip it past a plain match; stripped before the second look.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/** A base character and its combining marks: NFKC is applied per cluster so positions can be mapped back. */
const CLUSTER = /\P{M}\p{M}*|\p{M}+/uy;

/** What a secret or a text is compared as on the second look: NFKC (full-width, ligatures), invisibles removed. */
export function normalizeForSecrets(text: string): string {
  return text.normalize('NFKC').replace(INVISIBLE, '');
}

/** Encoded forms are matched only for secrets of at least this many UTF-8 bytes: shorter ones hit random hex and base64. */
export const MIN_ENCODED_BYTES = 6;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = ((bytes[i] ?? 0) << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    const chars = [18, 12, 6, 0].map((sh) => B64[(n >> sh) & 63] ?? '');
    const keep = Math.min(4, Math.ceil(((bytes.length - i) * 8) / 6));
    out += chars.slice(0, keep).join('') + '='.repeat(4 - keep);
  }
  return out;
}

const hexOf = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
const b64 = (s: string): string => base64(utf8(s));
const b64url = (s: string): string => b64(s).replace(/\+/g, '-').replace(/\//g, '_');

/**
 * Every spelling of a secret this module promises to catch, by name: what the masker masks, the guard refuses and
 * the secret scan (tests/tools/secret-scan.ts) plants to prove it finds. Written with no Node API (shared/ runs
 * anywhere). Hex and base64 forms are caught for values of MIN_ENCODED_BYTES or more.
 */
export const SPELLINGS: Readonly<Record<string, (s: string) => string>> = {
  raw: (s) => s,
  base64: b64,
  'base64 without padding': (s) => b64(s).replace(/=+$/, ''),
  base64url: (s) => b64url(s).replace(/=+$/, ''),
  'base64url with padding': b64url,
  'base64 inside user:secret (Basic auth)': (s) => b64(`operator:${s}`),
  'base64 after one byte': (s) => b64(`x${s}`),
  'base64 after two bytes': (s) => b64(`xy${s}`),
  'hex lowercase': (s) => hexOf(utf8(s)),
  'hex uppercase': (s) => hexOf(utf8(s)).toUpperCase(),
  'URL-encoded': (s) => encodeURIComponent(s),
  'URL-encoded every byte': (s) => Array.from(utf8(s), (b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  reversed: (s) => Array.from(s).reverse().join(''),
  'split by zero-width spaces': (s) => Array.from(s).join('\u200b'),
  'split by zero-width joiners and a BOM': (s) => `\ufeff${Array.from(s).join('\u200d')}`,
  'split by soft hyphens': (s) => Array.from(s).join('\u00ad'),
  'split by control characters': (s) => Array.from(s).join('\u0007'),
  'full-width (NFKC)': (s) => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)),
};

/**
 * Base64 spellings of a secret (RFC 4648 §4 standard and §5 URL-safe alphabets, with and without `=` padding),
 * standing alone and inside a longer encoded value (`user:secret` in a Basic header): for each of the three
 * byte alignments, the characters that depend on the secret's bytes only.
 */
function base64Forms(bytes: Uint8Array): string[] {
  const forms = new Set<string>();
  for (let k = 0; k < 3; k++) {
    const shifted = new Uint8Array(k + bytes.length);
    shifted.set(bytes, k);
    const enc = base64(shifted);
    if (k === 0) forms.add(enc);
    // Character c covers bits [6c, 6c + 6): it depends on the secret alone when those bits lie inside it.
    const core = enc.slice(Math.ceil((8 * k) / 6), Math.floor((8 * shifted.length) / 6));
    if (core.length >= 6) forms.add(core);
  }
  for (const f of [...forms]) {
    forms.add(f.replace(/=+$/, ''));
    forms.add(f.replace(/\+/g, '-').replace(/\//g, '_'));
    forms.add(f.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/**
 * Every spelling of one secret value as a regex alternation: the value and its reversal (each character in any
 * URL/JSON/HTML escape), its UTF-8 bytes in hex (either case), and its base64 forms. Case-insensitive hex and
 * the base64 forms are for values of MIN_ENCODED_BYTES or more.
 */
function formsPattern(value: string): string {
  const alts = [secretPattern(value)];
  const reversed = Array.from(value).reverse().join('');
  if (reversed !== value) alts.push(secretPattern(reversed));
  const bytes = new TextEncoder().encode(value);
  if (bytes.length >= MIN_ENCODED_BYTES) {
    alts.push(Array.from(bytes, (b) => hexRe(b, 2)).join(''));
    for (const f of base64Forms(bytes)) alts.push(escapeRe(f));
  }
  return alts.map((a) => `(?:${a})`).join('|');
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

  /** The masker of an authoring session: its secret inputs (the evening's and the extension's, built one way). */
  static forInputs(inputs: Iterable<{ name: string; value: string; secret: boolean }>): Masker {
    return new Masker([...inputs].filter((i) => i.secret).map((i) => ({ name: i.name, value: i.value })));
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
      // Each secret also under its normalised spelling (NFKC, invisibles removed), for the second look.
      const all: Entry[] = [];
      for (const e of this.#entries) {
        all.push(e);
        const n = normalizeForSecrets(e.value);
        if (n !== e.value && n.length >= MIN_SECRET_LENGTH) all.push({ name: e.name, value: n });
      }
      // Longest value first: a regex alternation takes the first branch that matches, so a secret
      // that contains another ("hunter22" vs "hunter2") is masked whole, under its own name.
      const sorted = all.sort((a, b) => b.value.length - a.value.length);
      this.#names = sorted.map((e) => e.name);
      this.#re = new RegExp(sorted.map((e) => `(${formsPattern(e.value)})`).join('|'), 'g');
    }
    return this.#re;
  }

  #placeholder(args: unknown[]): string {
    const groups = args.slice(1, 1 + this.#names.length);
    const i = groups.findIndex((g) => g !== undefined);
    return `[secret:${this.#names[i] ?? 'unknown'}]`;
  }

  /**
   * Replaces every occurrence (in any supported encoding) in one left-to-right pass, so a placeholder is never
   * re-masked; then takes a second look at the text normalised (NFKC, zero-width and control characters removed),
   * so `hun\u200bter2` or full-width `ｈｕｎｔｅｒ２` is masked too, the whole span from first to last character.
   */
  mask(text: string): string {
    const re = this.#regex();
    if (!re) return text;
    const once = text.replace(re, (...args: unknown[]) => this.#placeholder(args));
    // The usual case, cheaply: nothing is left even after normalising the whole text.
    re.lastIndex = 0;
    const left = re.test(normalizeForSecrets(once));
    re.lastIndex = 0;
    if (!left) return once;
    const { norm, start, end } = normalisedWithMap(once);
    let out = '';
    let at = 0;
    re.lastIndex = 0;
    for (const m of norm.matchAll(re)) {
      const from = start[m.index] ?? 0;
      const to = end[m.index + m[0].length - 1] ?? from;
      if (from < at) continue;
      out += once.slice(at, from) + this.#placeholder([m[0], ...m.slice(1)]);
      at = to;
    }
    return out + once.slice(at);
  }

  /** True when the text still holds a registered secret in any supported encoding, plain or normalised. */
  has(text: string): boolean {
    return this.nameIn(text) !== null;
  }

  /** The name of the first registered secret the text holds (any encoding, plain or normalised), or null. */
  nameIn(text: string): string | null {
    const re = this.#regex();
    if (!re) return null;
    for (const t of [text, normalizeForSecrets(text)]) {
      re.lastIndex = 0;
      const m = re.exec(t);
      re.lastIndex = 0;
      if (m) return this.#placeholder([...m]).slice('[secret:'.length, -1);
    }
    return null;
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

/**
 * The text normalised cluster by cluster, with, for each UTF-16 unit of the result, where its cluster starts and
 * ends in the original: a match in the normalised text masks exactly the original characters it came from.
 */
function normalisedWithMap(text: string): { norm: string; start: number[]; end: number[] } {
  const parts: string[] = [];
  const start: number[] = [];
  const end: number[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    // Printable ASCII not followed by a possible combining mark is its own NFKC form: the common case, kept fast.
    if (c >= 0x20 && c < 0x7f && !(next >= 0x300)) {
      parts.push(text[i] as string);
      start.push(i);
      end.push(i + 1);
      i++;
      continue;
    }
    CLUSTER.lastIndex = i;
    const cluster = CLUSTER.exec(text)?.[0] ?? (text[i] as string);
    const n = normalizeForSecrets(cluster);
    for (let k = 0; k < n.length; k++) {
      start.push(i);
      end.push(i + cluster.length);
    }
    parts.push(n);
    i += cluster.length;
  }
  return { norm: parts.join(''), start, end };
}

/**
 * Adds every `HANDRAIL_SECRET_<NAME>` of `env` to `m`, named by its lower-cased NAME. A value too short to mask is
 * skipped: a run refuses such a secret in preflight, before anything is shown.
 */
export function addEnvSecrets(m: Masker, env: Readonly<Record<string, string | undefined>>): Masker {
  for (const [k, v] of Object.entries(env)) {
    if (!k.startsWith('HANDRAIL_SECRET_') || v === undefined) continue;
    try {
      m.add(k.slice('HANDRAIL_SECRET_'.length).toLowerCase().replace(/[^a-z0-9_.-]/g, '_') || 'secret', v);
    } catch (e) {
      if (!(e instanceof SecretError)) throw e;
    }
  }
  return m;
}
