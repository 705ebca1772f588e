// A secret cannot be slipped past the masker or the authoring guard by spelling it differently: base64 (standard and
// URL-safe, padded or not, alone or inside a longer value), hex in either case, URL-encoded, reversed, split by
// zero-width or control characters, or in full-width letters. Every form is generated and checked against both.
import { describe, expect, it } from 'vitest';
import { Guard } from '../../shared/author/guard.ts';
import { Masker, SPELLINGS } from '../../shared/secrets.ts';
import { FakeSurface, MemoryBook, signOnScreens } from '../fixtures/author/fake-surface.ts';

/** Every spelling of a secret the issue names (shared/secrets.ts): each must be masked and refused. */
export const FORMS = SPELLINGS;

const SECRETS = ['hunter-22-zz', 'p@ss w0rd/+?', 'Zürich-pin-42', 'tok_9fQx/+=='];

describe('the masker catches every spelling', () => {
  for (const secret of SECRETS) {
    for (const [form, fn] of Object.entries(FORMS)) {
      it(`${form} of ${JSON.stringify(secret)}`, () => {
        const m = new Masker([{ name: 'password', value: secret }]);
        const spelled = fn(secret);
        const text = `before <${spelled}> after`;
        expect(m.has(text)).toBe(true);
        expect(m.nameIn(text)).toBe('password');
        const out = m.mask(text);
        expect(out).toContain('[secret:password]');
        expect(out).not.toContain(spelled);
        expect(m.has(out)).toBe(false);
        expect(out.startsWith('before <')).toBe(true);
        expect(out.endsWith('> after')).toBe(true);
      });
    }
  }

  it('leaves ordinary text, hashes and base64 of other things alone', () => {
    const m = new Masker([{ name: 'password', value: 'hunter-22-zz' }]);
    const text = `sha256:${'0123456789abcdef'.repeat(4)} ${SPELLINGS['base64']?.('hunter-23-zz') ?? ''} ｆｕｌｌ ｗｉｄｔｈ a\u200bb`;
    expect(m.mask(text)).toBe(text);
    expect(m.has(text)).toBe(false);
  });

  it('masks a 120 KB screen text quickly', () => {
    const m = new Masker([{ name: 'password', value: 'hunter-22-zz' }]);
    const text = 'Member 123456 shares\n'.repeat(6000);
    const t = performance.now();
    for (let i = 0; i < 10; i++) m.mask(text);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});

describe('the guard refuses every spelling as a literal', () => {
  const SECRET = 'hunter-22-zz';
  for (const [form, fn] of Object.entries(FORMS)) {
    it(form, async () => {
      const surface = new FakeSurface(signOnScreens(), 'signon');
      const book = new MemoryBook();
      const guard = new Guard({
        surface,
        book,
        masker: new Masker([{ name: 'password', value: SECRET }]),
        goal: 'sign on',
        inputs: [
          { name: 'operator_id', value: 'OP1001', secret: false },
          { name: 'password', value: SECRET, secret: true },
        ],
        owner: { ask: () => Promise.resolve({ answer: 'navigate', name: 'Olive Owner' }) },
        settle: { quietMs: 0, pollMs: 1 },
      });
      await guard.show();
      const spelled = fn(SECRET);
      const out = await guard.handle({ id: 't1', name: 'act', input: { row: 2, verb: 'set_value', value: spelled } });
      expect(out.ok).toBe(false);
      expect(out.text).toContain('(SECRET_LITERAL)');
      expect(out.text).toContain('{{input.password}}');
      expect(out.text).not.toContain(spelled);
      // The refusal is kept in the book, and the book holds no spelling of the secret.
      expect(book.lines).toEqual([expect.objectContaining({ kind: 'refusal', code: 'SECRET_LITERAL' })]);
      expect(JSON.stringify(book.lines)).not.toContain(spelled);
      expect(surface.log).toEqual([]);
    });
  }
});
