// How the CLI talks about failure: one clear line for the user, the stack only when HANDRAIL_DEBUG is set.
import { HandrailError, type ErrorCode } from '../../shared/errors.ts';

/** A problem the user can fix from the message alone (bad flag, unreadable file, bad card). */
export class UsageError extends HandrailError {
  override readonly name = 'UsageError';
  constructor(message: string, code: ErrorCode = 'USAGE') {
    super(code, message);
  }
}

export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 70;

export function reportError(e: unknown): number {
  if (e instanceof UsageError || (e instanceof Error && 'code' in e && typeof e.code === 'string')) {
    process.stderr.write(`handrail: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  }
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`handrail: internal error: ${message}\n`);
  if (process.env['HANDRAIL_DEBUG'] && e instanceof Error && e.stack) process.stderr.write(`${e.stack}\n`);
  else process.stderr.write('(set HANDRAIL_DEBUG=1 to see where)\n');
  return EXIT_INTERNAL;
}
