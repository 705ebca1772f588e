// Failpoints: `HANDRAIL_FAILPOINT=<step>:<before_act|after_act|after_settle>` kills the process at that point
// of that step with SIGKILL — no finally blocks, no flushes, no exit handlers — which is how a real crash
// (power cut, OOM kill) meets the journal. Inert unless the variable is set.
// `after_act` dies as soon as the act returned: the click was dispatched, but whether its request left the
// browser before the browser died with the process is a race (both outcomes are in doubt, rightly).
// `after_settle` dies once the step is proven — the page settled after the act and, for a commit, showed its outcome
// or postconditions — so the press surely reached the app, and before the journal says `observed`: the
// deterministic "pressed, then crashed" case.
import { z } from 'zod';
import { HandrailError } from '../../shared/errors.ts';

export const FailpointWhere = z.enum(['before_act', 'after_act', 'after_settle']);
export type FailpointWhere = z.infer<typeof FailpointWhere>;

export const Failpoint = z.strictObject({ step: z.string().regex(/^\S+$/), where: FailpointWhere });
export type Failpoint = z.infer<typeof Failpoint>;

export const FAILPOINT_ENV = 'HANDRAIL_FAILPOINT';

export class FailpointError extends HandrailError<'FAILPOINT_MALFORMED'> {
  override readonly name = 'FailpointError';
  constructor(message: string) {
    super('FAILPOINT_MALFORMED', message);
  }
}

/** Parses the variable's value; undefined or empty means no failpoint. A malformed value throws. */
export function parseFailpoint(value: string | undefined): Failpoint | undefined {
  if (value === undefined || value === '') return undefined;
  // The step id is everything before the last colon, so a step id may itself contain colons.
  const i = value.lastIndexOf(':');
  const r = Failpoint.safeParse(i < 0 ? {} : { step: value.slice(0, i), where: value.slice(i + 1) });
  if (!r.success) {
    throw new FailpointError(`${FAILPOINT_ENV}=${JSON.stringify(value)} is malformed: expected <step>:before_act, <step>:after_act or <step>:after_settle`);
  }
  return r.data;
}

let loaded: { fp: Failpoint | undefined } | undefined;

/**
 * Reads the environment once and caches the answer. Call it at startup (the CLI does) so a
 * malformed value is a typed error before anything is touched, not a surprise mid-run.
 */
export function loadFailpoint(env: NodeJS.ProcessEnv = process.env): Failpoint | undefined {
  loaded ??= { fp: parseFailpoint(env[FAILPOINT_ENV]) };
  return loaded.fp;
}

/** Dies here, abruptly, if the configured failpoint names this step and place. */
export function failpoint(step: string, where: FailpointWhere): void {
  const fp = loadFailpoint();
  if (fp && fp.step === step && fp.where === where) {
    process.kill(process.pid, 'SIGKILL');
  }
}
