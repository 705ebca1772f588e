// Test support: `handrail serve` as a child process with the MCP SDK's client on its stdio, the way an agent's
// host runs it — plus what the SDK's own stdio transport hides from a test: the pid to signal and the exit code.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(import.meta.dirname, '../../..');
/** The same command an MCP client configures: bin/handrail.mjs runs the compiled CLI (dist/runner/cli/main.js). */
export const HANDRAIL = join(ROOT, 'bin/handrail.mjs');

/** A client transport over a child process's stdin/stdout, framed by the SDK's own ReadBuffer and serializer. */
export class ChildTransport implements Transport {
  onmessage?: (m: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (e: Error) => void;
  readonly #buf = new ReadBuffer();
  constructor(readonly child: ChildProcessWithoutNullStreams) {}

  start(): Promise<void> {
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.#buf.append(chunk);
      for (;;) {
        let m: JSONRPCMessage | null;
        try {
          m = this.#buf.readMessage();
        } catch (e) {
          this.onerror?.(e as Error);
          continue;
        }
        if (m === null) break;
        this.onmessage?.(m);
      }
    });
    this.child.once('close', () => this.onclose?.());
    return Promise.resolve();
  }

  send(m: JSONRPCMessage): Promise<void> {
    return new Promise((ok, fail) => {
      if (!this.child.stdin.writable) return fail(new Error('the server\'s stdin is closed'));
      this.child.stdin.write(serializeMessage(m), (e) => (e ? fail(e) : ok()));
    });
  }

  close(): Promise<void> {
    this.child.stdin.end();
    return Promise.resolve();
  }
}

export interface Child {
  client: Client;
  child: ChildProcessWithoutNullStreams;
  stderr: () => string;
  /** Resolves with the exit code (or the signal that ended the process). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  close: () => Promise<void>;
}

/** Starts `handrail serve <args>` with exactly `env` and connects an SDK client over its stdio. */
export async function serveChild(args: readonly string[], env: NodeJS.ProcessEnv, client = new Client({ name: 'handrail-e2e', version: '0.0.0' })): Promise<Child> {
  const child = spawn(process.execPath, [HANDRAIL, 'serve', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('close', (code, signal) => r({ code, signal })));
  await client.connect(new ChildTransport(child));
  return {
    client,
    child,
    stderr: () => err,
    exited,
    close: async () => {
      await client.close().catch(() => undefined);
      if (child.exitCode === null && child.signalCode === null) {
        const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
    },
  };
}
