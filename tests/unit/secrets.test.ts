// A password or token registered as a secret never survives into text, raw or in any encoding a URL, form, JSON body or HTML page gives it.
import { describe, expect, it } from 'vitest';
import { Masker, SecretError } from '../../shared/secrets.ts';

const html = (s: string, apos: string, quot = '&quot;'): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, quot).replace(/'/g, apos);
const htmlNumeric = (s: string): string => Array.from(s, (c) => `&#${c.codePointAt(0)};`).join('');
const htmlHex = (s: string): string => Array.from(s, (c) => `&#x${(c.codePointAt(0) ?? 0).toString(16).toUpperCase()};`).join('');
const jsonAscii = (s: string): string =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));

const ENCODINGS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  encodeURIComponent: (s) => encodeURIComponent(s),
  'encodeURIComponent lowercase hex': (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
  'form (+ for space)': (s) => encodeURIComponent(s).replace(/%20/g, '+'),
  URLSearchParams: (s) => new URLSearchParams({ k: s }).toString().slice(2),
  encodeURI: (s) => encodeURI(s),
  'JSON string': (s) => JSON.stringify(s).slice(1, -1),
  'JSON \\u-escaped ASCII': jsonAscii,
  'JSON escaped solidus': (s) => JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/'),
  'HTML &#39;': (s) => html(s, '&#39;'),
  'HTML &#x27;': (s) => html(s, '&#x27;'),
  'HTML &apos; &#34;': (s) => html(s, '&apos;', '&#34;'),
  'HTML numeric': htmlNumeric,
  'HTML hex': htmlHex,
};

const SECRETS = ['hunter2', 'p@ss w0rd/&"<\'>+%~*()!', 'Zürich 😀 pin', 'tab\there\nnewline\\back', 'a b'];

describe('Masker', () => {
  for (const secret of SECRETS) {
    for (const [enc, fn] of Object.entries(ENCODINGS)) {
      it(`masks ${JSON.stringify(secret)} when ${enc}-encoded`, () => {
        const m = new Masker([{ name: 'password', value: secret }]);
        const encoded = fn(secret);
        const text = `before ${encoded} middle ${encoded}after`;
        expect(m.has(text)).toBe(true);
        const out = m.mask(text);
        expect(out).toBe('before [secret:password] middle [secret:password]after');
        expect(out).not.toContain(encoded);
        expect(m.has(out)).toBe(false);
      });
    }
  }

  it('masks the longest secret first, under its own name', () => {
    const m = new Masker([
      { name: 'short', value: 'hunter2' },
      { name: 'long', value: 'hunter22' },
    ]);
    expect(m.mask('x hunter22 y hunter2 z')).toBe('x [secret:long] y [secret:short] z');
  });

  it('refuses empty and very short values with a typed error that does not echo the value', () => {
    const m = new Masker();
    for (const v of ['', 'a', 'ab']) {
      let err: unknown;
      try {
        m.add('pin', v);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SecretError);
      expect((err as SecretError).code).toBe('SECRET_TOO_SHORT');
      if (v) expect((err as SecretError).message).not.toContain(`"${v}"`);
    }
    expect(() => m.add('bad name!', 'longenough')).toThrow(expect.objectContaining({ code: 'SECRET_NAME_INVALID' }) as Error);
    expect(m.size).toBe(0);
  });

  it('leaves text without secrets untouched and has() says no', () => {
    const m = new Masker([{ name: 'token', value: 's3cr3t-token' }]);
    expect(m.mask('nothing to see: s3cr3t token')).toBe('nothing to see: s3cr3t token');
    expect(m.has('nothing')).toBe(false);
    expect(new Masker().mask('hunter2')).toBe('hunter2');
  });

  it('maskDeep masks strings in nested objects, arrays, keys, errors and numbers holding a PIN', () => {
    const m = new Masker([
      { name: 'password', value: 'hunter2' },
      { name: 'pin', value: '4321' },
    ]);
    const cyclic: Record<string, unknown> = { s: 'hunter2' };
    cyclic.self = cyclic;
    const input = {
      url: `https://bank.test/login?pw=${encodeURIComponent('hunter2')}`,
      nested: { list: ['ok', { deep: 'pw is hunter2!' }], n: 7, pinNumber: 4321, flag: true, nil: null },
      hunter2: 'key holds it',
      err: new Error('login failed for hunter2'),
      cyclic,
    };
    const out = m.maskDeep(input);
    const { cyclic: _c, ...acyclic } = out;
    const text = JSON.stringify(acyclic) + String((out.cyclic as Record<string, unknown>).s);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('4321');
    expect(out.nested.n).toBe(7);
    expect(out.nested.flag).toBe(true);
    expect(out.nested.pinNumber).toBe('[secret:pin]');
    expect((out.nested.list[1] as { deep: string }).deep).toBe('pw is [secret:password]!');
    expect(out.url).toBe('https://bank.test/login?pw=[secret:password]');
    expect(input.url).toContain('hunter2'); // the input is not mutated
    expect(out.err).toEqual({ name: 'Error', message: 'login failed for [secret:password]' });
    const c = out.cyclic as Record<string, unknown>;
    expect(c.self).toBe(c);
  });
});
