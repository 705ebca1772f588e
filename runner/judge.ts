// The independent judge of `handrail verify`: after each plate's run it asks the system of record — never the
// screen the run saw — whether the work really happened. Two implementations behind one port: a command and a URL.
import { spawn } from 'node:child_process';
import type { RunResult } from '../shared/schema/result.ts';

export interface Verdict {
  ok: boolean;
  /** One line a reviewer reads in the per-plate table. */
  detail: string;
}

/** `plate` holds the plate's public inputs only: secret values are never handed to a judge. */
export type Judge = (plate: Readonly<Record<string, string>>, result: RunResult) => Promise<Verdict>;

export class JudgeSpecError extends Error {
  override readonly name = 'JudgeSpecError';
  readonly code = 'BAD_JUDGE';
}

const JUDGE_TIMEOUT_MS = 30_000;
const BLANK_RE = /\{\{\s*(?:input\.)?([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

function oneLine(text: string, max = 160): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/**
 * The URL judge. `template` may name plate inputs as `{{share_id}}` or, as in a card, `{{input.share_id}}` (percent-encoded when filled).
 * Contract: GET the filled URL; the answer is yes exactly when the status is 2xx and the body is JSON with
 * `"held": true`. Anything else — another status, not JSON, `held` false or absent, no answer in 30 s — is no.
 */
export function urlJudge(template: string): Judge {
  if (!/^https?:\/\//.test(template)) throw new JudgeSpecError(`--judge URL must start with http:// or https://, got "${template}"`);
  return async (plate) => {
    let url: string;
    try {
      url = template.replace(BLANK_RE, (_, name: string) => {
        const v = plate[name];
        if (v === undefined) throw new JudgeSpecError(`the judge URL names {{${name}}}, which this plate does not have (plate has: ${Object.keys(plate).join(', ')})`);
        return encodeURIComponent(v);
      });
    } catch (e) {
      if (e instanceof JudgeSpecError) return { ok: false, detail: e.message };
      throw e;
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(JUDGE_TIMEOUT_MS), headers: { accept: 'application/json' } });
      const text = await res.text();
      if (!res.ok) return { ok: false, detail: `judge answered ${res.status}: ${oneLine(text)}` };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return { ok: false, detail: `judge answer is not JSON: ${oneLine(text)}` };
      }
      const held = (body as { held?: unknown } | null)?.held;
      return { ok: held === true, detail: `judge: ${oneLine(JSON.stringify(body))}` };
    } catch (e) {
      return { ok: false, detail: `judge unreachable: ${(e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message}` };
    }
  };
}

/**
 * The command judge: `sh -c <command>` with `{"plate": {...}, "receipt": {...}}` as JSON on stdin.
 * Exit 0 is yes, any other exit (or no exit within 30 s) is no; the first line of stdout (else stderr) is the detail.
 */
export function commandJudge(command: string, env: NodeJS.ProcessEnv = process.env): Judge {
  if (command.trim() === '') throw new JudgeSpecError('--judge command is empty');
  return (plate, result) =>
    new Promise<Verdict>((resolve) => {
      const child = spawn('sh', ['-c', command], { stdio: ['pipe', 'pipe', 'pipe'], env });
      let out = '';
      let err = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), JUDGE_TIMEOUT_MS);
      child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
      child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve({ ok: false, detail: `judge command failed to start: ${e.message}` });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const said = oneLine(out) || oneLine(err);
        if (code === 0) resolve({ ok: true, detail: said || 'judge command said yes (exit 0)' });
        else resolve({ ok: false, detail: `judge command said no (${signal ? `killed by ${signal}` : `exit ${code}`})${said ? `: ${said}` : ''}` });
      });
      // A judge that never reads stdin must not crash us with EPIPE.
      child.stdin.on('error', () => undefined);
      child.stdin.end(JSON.stringify({ plate, receipt: result }));
    });
}

/** `--judge` is a URL when it starts with http(s)://, a shell command otherwise. */
export function judgeFrom(spec: string): Judge {
  return /^https?:\/\//.test(spec.trim()) ? urlJudge(spec.trim()) : commandJudge(spec);
}
