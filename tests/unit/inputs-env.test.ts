// A careless user's input is named, never echoed: a misspelt `--input passwrd=…`, a pair without "=", a misspelt
// column in verify's plates. A card reads the environment only where someone allowed it: `{{env.ANTHROPIC_API_KEY}}`
// in an entry is refused before any browser, BASE_URL keeps working, and `--allow-env` / HANDRAIL_ALLOW_ENV add names.
import { describe, expect, it } from 'vitest';
import { parseInputs, withAllowedEnv } from '../../runner/cli/replay.ts';
import type { Judge } from '../../runner/judge.ts';
import { runCapability, type RunRequest } from '../../runner/run.ts';
import { verify } from '../../runner/verify.ts';
import { validateInputs } from '../../shared/inputs.ts';
import { Capability } from '../../shared/schema/index.ts';
import { RunResult } from '../../shared/schema/result.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';

const SECRET = 'hunter-22-zz';
const KEY = 'sk-ant-planted-5c1e';

describe('inputs are named, values never shown', () => {
  it.each([
    ['a pair without "="', [`passwrd:${SECRET}`]],
    ['a pair with an empty name', [`=${SECRET}`]],
    ['a pair whose name is not an input name', [`pass wrd=${SECRET}`]],
  ])('parseInputs refuses %s without echoing it', (_what, pairs) => {
    let message = '';
    try {
      parseInputs(pairs);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/--input expects name=value/);
    expect(message).not.toContain(SECRET);
  });

  it('an unknown input is named with a suggestion, and its value is never in the message', () => {
    const card = Capability.parse(minimalCard());
    const r = validateInputs(card, { member_number: '400118', passwrd: SECRET }, {});
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems[0]).toMatchObject({ input: 'passwrd', code: 'UNKNOWN_INPUT' });
    expect(r.problems[0]?.message).toContain('did you mean "password"?');
    expect(JSON.stringify(r.problems)).not.toContain(SECRET);
  });

  it('a public input that does not match its pattern is quoted short', () => {
    const card = Capability.parse(minimalCard());
    const r = validateInputs(card, { member_number: 'x'.repeat(5000), password: SECRET }, {});
    expect(JSON.stringify(r).length).toBeLessThan(500);
  });

  it('verify never shows a plate column the card does not declare (a misspelt secret column)', async () => {
    const lines: string[] = [];
    const judge: Judge = () => Promise.resolve({ ok: true, state: { held: false } });
    const run = (req: RunRequest): Promise<RunResult> =>
      runCapability({ ...req, surface: () => Promise.reject(new Error('no surface in unit tests')) });
    const card = Capability.parse({ ...minimalCard(), lifecycle: { state: 'draft' }, judge: { change: { before: { held: false }, after: { held: true } } } });
    await verify(card, {
      plates: [{ member_number: '400118', passwrd: SECRET }],
      judge,
      run,
      env: { HANDRAIL_SECRET_PASSWORD: 'the-real-one-77' },
      progress: (l) => lines.push(l),
      surfaceFactory: () => Promise.reject(new Error('unused')),
      evidenceRoot: '/tmp/handrail-unused',
    });
    expect(lines.join('\n')).toContain('member_number=400118');
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});

describe('a card reads the environment only where allowed', () => {
  const cardWith = (entry: string): Capability => Capability.parse({ ...minimalCard(), entry, lifecycle: { state: 'draft' } });
  const go = (entry: string, env: Record<string, string>) => {
    let opened = 0;
    return runCapability({
      card: cardWith(entry),
      inputs: { member_number: '400118' },
      env: { HANDRAIL_SECRET_PASSWORD: SECRET, ANTHROPIC_API_KEY: KEY, ...env },
      allowUnapproved: true,
      surface: () => {
        opened++;
        return Promise.reject(new Error('no surface in unit tests'));
      },
    }).then((r) => ({ r, opened }));
  };

  it.each(['http://127.0.0.1:9/?k={{env.ANTHROPIC_API_KEY}}', '{{env.HANDRAIL_SECRET_PASSWORD}}', 'http://{{env.HOME}}/'])(
    'refuses %s before any browser, naming the blank and never its value',
    async (entry) => {
      const { r, opened } = await go(entry, { HANDRAIL_ALLOW_ENV: 'HANDRAIL_SECRET_PASSWORD,ANTHROPIC_API_KEY' });
      expect(r).toMatchObject({ word: 'REFUSED', code: 'ENV_NOT_ALLOWED' });
      expect(r.message).toMatch(/\{\{env\.[A-Z_]+\}\}/);
      expect(JSON.stringify(r)).not.toContain(KEY);
      expect(JSON.stringify(r)).not.toContain(SECRET);
      expect(opened).toBe(0);
    },
  );

  it('fills {{env.BASE_URL}} as before (from --base-url)', async () => {
    const { r } = await go('{{env.BASE_URL}}/signon', { BASE_URL: 'http://127.0.0.1:9' });
    expect(r).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE' });
    expect(r.message).toContain('http://127.0.0.1:9/signon');
  });

  it('reads a name the operator allowed with --allow-env (or HANDRAIL_ALLOW_ENV)', async () => {
    const env = withAllowedEnv({ APP_HOST: '127.0.0.1:9' }, ['APP_HOST']) as Record<string, string>;
    const { r } = await go('http://{{env.APP_HOST}}/signon', env);
    expect(r).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE' });
    expect((await go('http://{{env.APP_HOST}}/signon', { APP_HOST: '127.0.0.1:9' })).r.code).toBe('ENV_NOT_ALLOWED');
  });

  it('--allow-env refuses secrets and keys by name', () => {
    expect(() => withAllowedEnv({}, ['HANDRAIL_SECRET_PASSWORD'])).toThrow(/never be read by a card/);
    expect(() => withAllowedEnv({}, ['ANTHROPIC_API_KEY'])).toThrow(/never be read by a card/);
    expect(() => withAllowedEnv({}, ['not a name'])).toThrow(/not an environment variable name/);
  });
});
