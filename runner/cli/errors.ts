// How the CLI talks about failure: one clear line for the user, the stack only when HANDRAIL_DEBUG is set.
import { errorCodeOf, HandrailError, refusalLine, refusalOf, type ErrorCode, type Refusal } from '../../shared/errors.ts';

/** A problem the user can fix from the message alone (bad flag, unreadable file, bad card). */
export class UsageError extends HandrailError {
  override readonly name = 'UsageError';
  constructor(message: string, code: ErrorCode = 'USAGE') {
    super(code, message);
  }
}

export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 70;

/** A refusal as the one line a person reads: its code first (what a script keys on), then the message, then where. */
export function renderRefusal(r: Refusal): string {
  return `handrail: ${refusalLine(r)}`;
}

/**
 * Any error a command ends on: a coded one (every HandrailError, and duck-typed codes from other realms) is a
 * refusal rendered from its data and exits 2; anything else is a bug: one line, the stack only with HANDRAIL_DEBUG.
 */
export function reportError(e: unknown): number {
  if (errorCodeOf(e)) {
    process.stderr.write(`${renderRefusal(refusalOf(e))}\n`);
    return EXIT_USAGE;
  }
  // A system error (ENOENT, EACCES…) names the file in its message: the user can act on it.
  if (e instanceof Error && 'code' in e && typeof e.code === 'string') {
    process.stderr.write(`handrail: ${e.message}\n`);
    return EXIT_USAGE;
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`handrail: internal error: ${message}\n`);
  if (process.env['HANDRAIL_DEBUG'] && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  else process.stderr.write('(set HANDRAIL_DEBUG=1 to see where)\n');
  return EXIT_INTERNAL;
}
