// One base error: every code the product raises maps once to a typed word and an exit code, a refusal is data ({code, path, message}), and codes are read across realms without instanceof.
import { describe, expect, it, vi } from 'vitest';
import { JournalError } from '../../runner/engine/journal.ts';
import { EvidenceError } from '../../runner/evidence.ts';
import { renderRefusal, reportError, UsageError } from '../../runner/cli/errors.ts';
import { LeaseError } from '../../runner/lease.ts';
import { SurfaceChoiceError } from '../../runner/surfaces.ts';
import { ModelConfigError } from '../../runner/author/anthropic.ts';
import { PatternError } from '../../shared/regex.ts';
import { SecretError } from '../../shared/secrets.ts';
import { SurfaceError } from '../../shared/surface.ts';
import { OwnerError } from '../../shared/author/ports.ts';
import { ErrorCode, errorCodeOf, exitCodeOf, HandrailError, Refusal, refusalLine, refusalOf, wordOf } from '../../shared/errors.ts';
import { Code, EXIT_CODE, Word } from '../../shared/schema/result.ts';

describe('the closed set of codes', () => {
  it('covers every receipt code, each with one word and the exit code of that word', () => {
    for (const code of Code.options) {
      expect(ErrorCode.options).toContain(code);
    }
    for (const code of ErrorCode.options) {
      expect(Word.options).toContain(wordOf(code));
      expect(exitCodeOf(code)).toBe(EXIT_CODE[wordOf(code)]);
    }
  });

  it('gives the words a caller decides from: bad input is REFUSED, a commit in doubt UNSAFE_TO_RETRY, another holder BUSY', () => {
    expect(wordOf('INVALID_INPUT')).toBe('REFUSED');
    expect(wordOf('COMMIT_IN_DOUBT')).toBe('UNSAFE_TO_RETRY');
    expect(wordOf('JOURNAL_DAMAGED')).toBe('UNSAFE_TO_RETRY');
    expect(wordOf('BUSY')).toBe('BUSY');
    expect(wordOf('TARGET_NOT_FOUND')).toBe('FAILED');
  });
});

describe('HandrailError', () => {
  it('is the base of the product errors, each keeping its own name and code', () => {
    const errors = [
      new JournalError('JOURNAL_DAMAGED', 'line 3 is edited', 3),
      new EvidenceError('EVIDENCE_SEALED', 'sealed'),
      new UsageError('bad flag'),
      new OwnerError('no answer'),
    ];
    expect(errors.map((e) => e instanceof HandrailError)).toEqual([true, true, true, true]);
    expect(errors.map((e) => [e.name, e.code, e.word])).toEqual([
      ['JournalError', 'JOURNAL_DAMAGED', 'UNSAFE_TO_RETRY'],
      ['EvidenceError', 'EVIDENCE_SEALED', 'FAILED'],
      ['UsageError', 'USAGE', 'REFUSED'],
      ['OwnerError', 'OWNER_FAILED', 'FAILED'],
    ]);
  });

  it('renders a refusal as data with the path of what was refused', () => {
    const r = new HandrailError('MISSING_INPUT', 'member_number is required', 'inputs.member_number').refusal();
    expect(Refusal.parse(r)).toEqual({ code: 'MISSING_INPUT', path: 'inputs.member_number', message: 'member_number is required' });
  });
});

describe('reading a code from any realm', () => {
  it('reads the code of a plain object that crossed a realm, and calls anything else INTERNAL', () => {
    const crossed = JSON.parse(JSON.stringify({ name: 'StoreError', code: 'NO_SESSION', message: 'no such session' })) as unknown;
    expect(errorCodeOf(crossed)).toBe('NO_SESSION');
    expect(errorCodeOf(Object.assign(new Error('x'), { code: 'ENOENT' }))).toBeUndefined();
    expect(refusalOf(new TypeError('undefined is not a function'))).toEqual({ code: 'INTERNAL', path: '', message: 'undefined is not a function' });
  });
});

describe('every error class the product raises', () => {
  it('carries a code from the one table, so every surface renders it as a refusal', () => {
    const raised = [
      new LeaseError('LEASE_IO', 'cannot write the lease'),
      new SurfaceChoiceError({ code: 'UNKNOWN_SURFACE', surface: 'x', message: 'no surface x' }),
      new ModelConfigError('no key'),
      new PatternError('bad pattern'),
      new SecretError('SECRET_TOO_SHORT', 'too short'),
      new SurfaceError('TIMEOUT', 'slow'),
    ];
    for (const e of raised) expect(errorCodeOf(e), e.name).toBeDefined();
    expect(raised.map((e) => refusalOf(e).code)).toEqual(['LEASE_IO', 'UNKNOWN_SURFACE', 'MODEL_NOT_CONFIGURED', 'PATTERN_INVALID', 'SECRET_TOO_SHORT', 'TIMEOUT']);
  });
});

describe('the CLI renders a refusal from its data', () => {
  it('puts the code first and the path when the message does not name it; a bug is one line and exit 70', () => {
    expect(renderRefusal({ code: 'MISSING_INPUT', path: 'inputs.reason', message: 'a value is required' })).toBe('handrail: MISSING_INPUT: a value is required (at inputs.reason)');
    // The side panel renders the worker's refusal with the same line, less the command's name.
    expect(refusalLine({ code: 'NO_SESSION', message: 'no session s1', path: '' })).toBe('NO_SESSION: no session s1');
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(reportError(new HandrailError('CARD_INVALID', 'steps.3.target: no such target', 'steps.3.target'))).toBe(2);
      expect(String(err.mock.calls.at(-1)?.[0])).toBe('handrail: CARD_INVALID: steps.3.target: no such target\n');
      expect(reportError(new TypeError('x is undefined'))).toBe(70);
      expect(err.mock.calls.map((c) => String(c[0])).join('')).not.toMatch(/at .*\.ts:\d+/);
    } finally {
      err.mockRestore();
    }
  });
});
