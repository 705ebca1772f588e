// One TN3270 connection (docs/design/terminal.md, "The terminal surface"): a TCP socket carrying telnet
// (terminal-agent/telnet.ts) whose records are applied to a 3270 screen (terminal-agent/screen.ts). Every outbound
// record is applied in arrival order; any reply the screen owes (a read command, a query) is sent at once.
import { connect, type Socket } from 'node:net';
import { Tn3270Error, Screen } from './screen.ts';
import { TelnetParser, frameRecord, OPT_TN3270E } from './telnet.ts';
import type { AidKey } from './datastream.ts';

export interface Endpoint {
  host: string;
  port: number;
}

/** `tn3270://host:port` or `host:port` as an endpoint; null for anything else. */
export function parseEntry(entry: string): Endpoint | null {
  const m = /^(?:tn3270:\/\/)?(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})\/?$/.exec(entry.trim());
  if (!m?.[1] || !m[2]) return null;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1].replace(/^\[|\]$/g, ''), port };
}

export class Tn3270Session {
  readonly screen = new Screen();
  readonly telnet = new TelnetParser();
  /** Options the host asked for and this client refused (TN3270E among them when a host offers it). */
  readonly refused = new Set<number>();
  /** Why the connection is no longer usable, once it is not. */
  ended: string | null = null;
  /** The writes counted when the last AID was sent: a new screen is a write after it. */
  writesAtAid = 0;
  readonly #socket: Socket;
  #changed: (() => void)[] = [];

  private constructor(socket: Socket, readonly endpoint: Endpoint) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (e) => this.#end(`the connection failed (${(e as NodeJS.ErrnoException).code ?? e.message})`));
    socket.on('close', () => this.#end('the host closed the connection'));
  }

  /**
   * Connect and wait for the host's first screen. Rejects with the socket's reason (refused, unreachable) or, after
   * `timeoutMs`, with what was still missing.
   */
  static connect(endpoint: Endpoint, timeoutMs = 10_000): Promise<Tn3270Session> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: endpoint.host, port: endpoint.port });
      socket.setNoDelay(true);
      const session = new Tn3270Session(socket, endpoint);
      const timer = setTimeout(() => {
        session.#changed = [];
        socket.destroy();
        const what = session.telnet.in3270 ? 'no screen arrived' : 'the host did not negotiate a 3270 session (TERMINAL-TYPE, EOR, BINARY)';
        reject(new Tn3270Error('TN3270_PROTOCOL', `${endpoint.host}:${endpoint.port}: ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        if (session.screen.writes > 0) {
          clearTimeout(timer);
          resolve(session);
        } else if (session.ended) {
          clearTimeout(timer);
          reject(new Tn3270Error('TN3270_PROTOCOL', `${endpoint.host}:${endpoint.port}: ${session.ended}`));
        } else session.#changed.push(check);
      };
      session.#changed.push(check);
    });
  }

  #receive(chunk: Buffer): void {
    try {
      const ev = this.telnet.feed(chunk);
      for (const o of ev.refused) this.refused.add(o);
      for (const s of ev.send) this.#socket.write(s);
      for (const record of ev.records) {
        const applied = this.screen.apply(record);
        if (applied.reply) this.#socket.write(frameRecord(applied.reply));
      }
    } catch (e) {
      this.#end((e as Error).message);
      this.#socket.destroy();
    }
    this.#notify();
  }

  #end(why: string): void {
    this.ended ??= why;
    this.#notify();
  }

  #notify(): void {
    const waiting = this.#changed;
    this.#changed = [];
    for (const f of waiting) f();
  }

  /** Whether the host asked for TN3270E (RFC 2355) and was refused. */
  get refusedTn3270e(): boolean {
    return this.refused.has(OPT_TN3270E);
  }

  /** A new screen has arrived since the last AID and the keyboard is unlocked: the operator may act. */
  get ready(): boolean {
    return !this.ended && !this.screen.locked && this.screen.writes > this.writesAtAid;
  }

  /** Press an AID key: the screen builds the inbound record, the keyboard locks, the record goes out. */
  press(key: AidKey): void {
    if (this.ended) throw new Tn3270Error('TN3270_PROTOCOL', this.ended);
    const record = this.screen.aid(key);
    this.writesAtAid = this.screen.writes;
    this.#socket.write(frameRecord(record));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      this.#socket.once('close', () => resolve());
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), 500).unref();
    });
  }
}
