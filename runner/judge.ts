// The independent judge of `handrail verify`: the system of record — never the screen the run saw — asked
// before and after each plate what the record says. The judge only reports state; whether that state is the
// card's expected change is decided here, from data the card declares (`judge.change`), so no application's
// field names are baked into the runner. Two implementations behind one port: a URL and a command.
import { spawn } from 'node:child_process';
import { JUDGE_BLANK_RE, type ExpectedChange, type JudgeState } from '../shared/schema/capability.ts';
import { HandrailError } from '../shared/errors.ts';

/** What a judge is asked. `inputs` are the plate's public inputs only: a secret value is never handed to a judge. */
export interface JudgeRequest {
  card: string;
  inputs: Readonly<Record<string, string>>;
  phase: 'before' | 'after';
}

/** A judge's answer: the record's state as a JSON object, or why it could not give one. */
export type JudgeAnswer = { ok: true; state: Record<string, unknown> } | { ok: false; detail: string };

export type Judge = (req: JudgeRequest) => Promise<JudgeAnswer>;

export class JudgeSpecError extends HandrailError<'BAD_JUDGE'> {
  override readonly name = 'JudgeSpecError';
  constructor(message: string) {
    super('BAD_JUDGE', message);
  }
}

const JUDGE_TIMEOUT_MS = 30_000;
/** A judge answer larger than this is not a state, it is a mistake: cut off and refused. */
const MAX_ANSWER_BYTES = 256 * 1024;

function oneLine(text: string, max = 160): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

function asState(text: string, who: string): JudgeAnswer {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { ok: false, detail: `${who} answer is not JSON: ${oneLine(text) || '(empty)'}` };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { ok: false, detail: `${who} answer is not a JSON object: ${oneLine(text)}` };
  return { ok: true, state: body as Record<string, unknown> };
}

/** Fills `{{name}}` / `{{input.name}}` from the plate; a blank the plate cannot fill is a JudgeSpecError. */
export function fillJudgeBlanks(text: string, inputs: Readonly<Record<string, string>>, encode: (v: string) => string = (v) => v): string {
  return text.replace(JUDGE_BLANK_RE, (whole, name: string) => {
    const v = inputs[name];
    if (v === undefined) throw new JudgeSpecError(`${whole} names an input this plate does not have (plate has: ${Object.keys(inputs).join(', ') || 'nothing'})`);
    return encode(v);
  });
}

/**
 * The URL judge: GET the template with the plate's inputs filled in (percent-encoded), plus `phase` and `card`
 * as query parameters. A 2xx answer whose body is a JSON object is the state; anything else — another status,
 * not JSON, no answer in 30 s — is no answer. PLUMBLINE's `/_judge/holds/{{share_id}}` is one such judge.
 */
export function urlJudge(template: string): Judge {
  if (!/^https?:\/\//.test(template)) throw new JudgeSpecError(`--judge URL must start with http:// or https://, got "${template}"`);
  return async (req) => {
    let url: URL;
    try {
      url = new URL(fillJudgeBlanks(template, req.inputs, encodeURIComponent));
    } catch (e) {
      if (e instanceof JudgeSpecError) return { ok: false, detail: `the judge URL ${e.message}` };
      return { ok: false, detail: `the judge URL is not a URL once filled: ${(e as Error).message}` };
    }
    url.searchParams.set('phase', req.phase);
    url.searchParams.set('card', req.card);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(JUDGE_TIMEOUT_MS), headers: { accept: 'application/json' } });
      const text = await res.text();
      if (!res.ok) return { ok: false, detail: `judge answered ${res.status}: ${oneLine(text)}` };
      if (text.length > MAX_ANSWER_BYTES) return { ok: false, detail: `judge answer is larger than ${MAX_ANSWER_BYTES} bytes` };
      return asState(text, 'judge');
    } catch (e) {
      return { ok: false, detail: `judge unreachable: ${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}` };
    }
  };
}

/** Always passed to a command judge (when set): enough to find programs and read text, nothing else. */
export const JUDGE_BASE_ENV = ['PATH', 'HOME', 'LANG'] as const;
/** Never passed to a judge, even when allowlisted: the run's secrets, the model's keys, the evidence key. */
const NEVER = [/^HANDRAIL_SECRET_/, /^ANTHROPIC_/, /^HANDRAIL_EVIDENCE_KEY$/, /^HANDRAIL_MCP_TOKEN$/];

/** The explicit, minimal environment of a command judge: PATH, HOME, LANG and the allowlisted names. */
export function judgeEnv(allow: readonly string[], from: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allow) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new JudgeSpecError(`--judge-env expects environment variable names, got "${name}"`);
    if (NEVER.some((re) => re.test(name))) throw new JudgeSpecError(`--judge-env ${name}: a judge is never given secrets or keys`);
  }
  for (const name of [...JUDGE_BASE_ENV, ...allow]) {
    const v = from[name];
    if (v !== undefined) env[name] = v;
  }
  return env;
}

/**
 * The command judge: `sh -c <command>` with the request `{"card", "inputs", "phase"}` as JSON on stdin and
 * only `env` in its environment (see judgeEnv). Exit 0 with a JSON object on stdout is the state; any other
 * exit, other output or no exit within 30 s is no answer, the first line of stderr saying why.
 */
export function commandJudge(command: string, env: Readonly<Record<string, string>> = judgeEnv([])): Judge {
  if (command.trim() === '') throw new JudgeSpecError('--judge command is empty');
  return (req) =>
    new Promise<JudgeAnswer>((resolve) => {
      const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...env } });
      let out = '';
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), JUDGE_TIMEOUT_MS);
      child.stdout.on('data', (b: Buffer) => {
        if (out.length <= MAX_ANSWER_BYTES) out += b.toString('utf8');
      });
      child.stderr.on('data', (b: Buffer) => {
        if (err.length <= MAX_ANSWER_BYTES) err += b.toString('utf8');
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve({ ok: false, detail: `judge command failed to start: ${e.message}` });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (code !== 0) {
          const said = oneLine(err) || oneLine(out);
          resolve({ ok: false, detail: `judge command gave no answer (${signal ? `killed by ${signal}` : `exit ${code}`})${said ? `: ${said}` : ''}` });
        } else if (out.length > MAX_ANSWER_BYTES) resolve({ ok: false, detail: `judge command printed more than ${MAX_ANSWER_BYTES} bytes` });
        else resolve(asState(out, 'judge command'));
      });
      // A judge that never reads stdin must not crash us with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify(req));
    });
}

/** `--judge` is a URL when it starts with http(s)://, a shell command otherwise (run with judgeEnv(allowEnv)). */
export function judgeFrom(spec: string, allowEnv: readonly string[] = []): Judge {
  return /^https?:\/\//.test(spec.trim()) ? urlJudge(spec.trim()) : commandJudge(spec, judgeEnv(allowEnv));
}

/** The value at `field` in a judge's state: the key itself if present, else a dotted path into nested objects. */
export function stateAt(state: Record<string, unknown>, field: string): unknown {
  if (field in state) return state[field];
  let v: unknown = state;
  for (const part of field.split('.')) {
    if (typeof v !== 'object' || v === null || Array.isArray(v) || !(part in v)) return undefined;
    v = (v as Record<string, unknown>)[part];
  }
  return v;
}

/** The fields of `pattern` (blanks filled from the plate) that `state` does not show; empty means it satisfies it. */
export function unmet(state: Record<string, unknown>, pattern: JudgeState, inputs: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [field, want] of Object.entries(pattern)) {
    const expected = typeof want === 'string' ? fillJudgeBlanks(want, inputs) : want;
    const got = stateAt(state, field);
    if (got !== expected) out.push(`${field}: wanted ${JSON.stringify(expected)}, judge says ${got === undefined ? '(absent)' : JSON.stringify(got)}`);
  }
  return out;
}

/** The two sides of the expected change with this plate's blanks filled: what a report shows a reviewer. */
export function filledChange(change: ExpectedChange, inputs: Readonly<Record<string, string>>): ExpectedChange {
  const fill = (s: JudgeState): JudgeState => Object.fromEntries(Object.entries(s).map(([k, v]) => [k, typeof v === 'string' ? fillJudgeBlanks(v, inputs) : v]));
  return { before: fill(change.before), after: fill(change.after) };
}
