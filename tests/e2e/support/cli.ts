// Runs the real `handrail` command as a child process, the way an operator or CI does, and collects what it printed.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve as resolvePath } from 'node:path';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What a test may do with the child while it runs. */
export interface ChildIo {
  /** Piped in all at once and then closed, as `printf … |` does. */
  stdin?: string;
  /** Sees stderr as it arrives (a test that must answer the run while it runs). */
  onStderr?: (chunk: string) => void;
  /** Handed the child as soon as it is spawned (its pid: the benchmark samples its process tree; a signal). */
  started?: (child: ChildProcess) => void;
}

const ROOT = resolvePath(import.meta.dirname, '../../..');
// The command a user runs: the compiled CLI (dist/, which the test configs build first), by its file, so the child may
// run in any directory (one without node_modules, with its own config).
const BIN = join(ROOT, 'bin/handrail.mjs');

/** Runs `node <argv>` with exactly `env` in `cwd` and collects what it printed. */
export function node(argv: readonly string[], env: NodeJS.ProcessEnv, cwd = ROOT, io: ChildIo = {}): Promise<Ran> {
  const { stdin, onStderr, started } = io;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd, env, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdin !== undefined) child.stdin?.end(stdin);
    started?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      onStderr?.(d.toString());
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/**
 * `handrail <args>` with exactly `env` as its environment (callers spread `process.env` in when they want it), in `cwd`
 * (default the repository).
 */
export function handrail(args: readonly string[], env: NodeJS.ProcessEnv, cwd = ROOT, io: ChildIo = {}): Promise<Ran> {
  return node([BIN, ...args], env, cwd, io);
}

/** `handrail <args>` as `handrail` does, with `out`: both streams in the order they arrived, as a terminal shows them. */
export async function handrailOut(args: readonly string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<Ran & { out: string }> {
  let out = '';
  const seen = (d: Buffer): void => {
    out += d.toString();
  };
  const ran = await handrail(args, env, cwd, {
    started: (child) => {
      child.stdout?.on('data', seen);
      child.stderr?.on('data', seen);
    },
  });
  return { ...ran, out };
}
