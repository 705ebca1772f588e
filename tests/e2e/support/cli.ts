// Runs the real `handrail` command as a child process, the way an operator or CI does, and collects what it printed.
import { spawn } from 'node:child_process';
import { join, resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const ROOT = resolvePath(import.meta.dirname, '../../..');
// tsx and the CLI by their files, so the child may run in any directory (one without node_modules, with its own config).
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const MAIN = join(ROOT, 'runner/cli/main.ts');

/**
 * `handrail <args>` with exactly `env` as its environment (callers spread `process.env` in when they want it), in
 * `cwd` (default the repository). `stdin`, when given, is piped in all at once and then closed, as `printf … |` does.
 */
export function handrail(args: readonly string[], env: NodeJS.ProcessEnv, cwd = ROOT, stdin?: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdin !== undefined) child.stdin?.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
