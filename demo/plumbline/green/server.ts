// PLUMBLINE's green screen: the bank as a TN3270 host on node:net, sharing the web app's Store (and so its judge).
// Telnet as a TN3270 server (RFC 1576): TERMINAL-TYPE (RFC 1091), then EOR (RFC 885) and BINARY (RFC 856) both
// ways, batched in one packet as real hosts send them; TN3270E (RFC 2355) and every other option refused.
// Option state follows RFC 1143's rule (answer only a change of state) so neither side loops.
// The screens and keys are in ./screens.ts; docs/design/demo.md, "Demo apps", has the table.
import { createServer, type Socket } from 'node:net';
import { listenOn } from '../listen.ts';
import { Store } from '../store.ts';
import {
  DO, DONT, DataStreamError, EOR, IAC, OPT, SB, SE, TTYPE_IS, TTYPE_SEND, WILL, WONT, frameRecord, parseInbound,
} from './codec.ts';
import { encodeScreen, type Screen } from './screen.ts';
import { newSession, press, render, type Session } from './screens.ts';

export interface GreenScreenOptions {
  /** The store to share with the web app; a new one (with operatorPassword) when not given. */
  store?: Store;
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Demo-only: the password of a store the green screen makes itself. A given store already has its own. */
  operatorPassword?: string;
  /** A fixed delay before every screen the host sends after a key, so a client's settling is exercised honestly. */
  latencyMs?: number;
}

export interface GreenScreen {
  /** tn3270://127.0.0.1:PORT */
  url: string;
  port: number;
  store: Store;
  close(): Promise<void>;
}

/** A start the caller got wrong, with a code naming what. */
export class GreenScreenOptionsError extends Error {
  override readonly name = 'GreenScreenOptionsError';
  readonly code = 'BAD_GREEN_SCREEN_OPTIONS';
}

/** IBM-3278-2 .. -5 and IBM-3279-2 .. -5, each optionally -E: all are answered on the model 2 24x80 screen. */
const TERMINAL_TYPE = /^IBM-327[89]-[2-5](-E)?$/;
/** A client that sends more than this without IAC EOR is not a 3270 (a full 24x80 read is under 2 KiB). */
const MAX_RECORD = 8192;
/** RFC 1091 allows a terminal type of at most 40 characters; anything longer than this is not one. */
const MAX_SUBNEGOTIATION = 256;
type State = 'no' | 'yes' | 'want';
const THEIRS = [OPT.TTYPE, OPT.EOR, OPT.BINARY] as const;
const OURS = [OPT.EOR, OPT.BINARY] as const;

/** One telnet connection: negotiation, then records in and screens out. */
class Connection {
  readonly #socket: Socket;
  readonly #store: Store;
  readonly #latencyMs: number;
  readonly #him = new Map<number, State>(THEIRS.map((o) => [o, 'no']));
  readonly #us = new Map<number, State>(OURS.map((o) => [o, 'no']));
  #terminalType: string | undefined;
  #lastOffered: string | undefined;
  #ready = false;
  #out: number[] = [];
  #mode: 'data' | 'iac' | 'verb' | 'sb' | 'sbiac' = 'data';
  #verb = 0;
  #record: number[] = [];
  #sb: number[] = [];
  #session: Session = newSession();
  #screen: Screen | undefined;
  #ended = false;

  constructor(socket: Socket, store: Store, latencyMs: number) {
    this.#socket = socket;
    this.#store = store;
    this.#latencyMs = latencyMs;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => socket.destroy());
    this.#send(IAC, DO, OPT.TTYPE);
    this.#him.set(OPT.TTYPE, 'want');
    this.#flush();
  }

  #send(...bytes: number[]): void {
    this.#out.push(...bytes);
  }

  /** Everything one incoming packet caused goes out in one write: answers batched, as real hosts do. */
  #flush(now = false): void {
    if (this.#out.length === 0 || this.#ended) return;
    const bytes = Buffer.from(this.#out);
    this.#out = [];
    // The answer is decided (and any hold posted) now; only its arrival waits. Equal delays keep the order.
    if (this.#ready && this.#latencyMs > 0 && !now) {
      setTimeout(() => {
        if (!this.#socket.destroyed) this.#socket.write(bytes);
      }, this.#latencyMs);
    } else {
      this.#socket.write(bytes);
    }
  }

  #end(text?: string): void {
    if (this.#ended) return;
    if (text !== undefined) this.#send(...Buffer.from(`${text}\r\n`, 'ascii'));
    this.#flush(true);
    this.#ended = true;
    this.#socket.end();
  }

  #receive(chunk: Buffer): void {
    for (const b of chunk) {
      if (this.#ended) return;
      this.#byte(b);
    }
    this.#flush();
  }

  /** RFC 854's command parser, one byte at a time (a command may be split across packets). */
  #byte(b: number): void {
    switch (this.#mode) {
      case 'data':
        if (b === IAC) this.#mode = 'iac';
        else this.#data(b);
        return;
      case 'iac':
        this.#mode = 'data';
        if (b === IAC) this.#data(IAC);
        else if (b === EOR) this.#endOfRecord();
        else if (b === WILL || b === WONT || b === DO || b === DONT) {
          this.#verb = b;
          this.#mode = 'verb';
        } else if (b === SB) {
          this.#sb = [];
          this.#mode = 'sb';
        }
        // NOP, GA, AYT and the rest need no answer from a 3270 host.
        return;
      case 'verb':
        this.#mode = 'data';
        this.#option(this.#verb, b);
        return;
      case 'sb':
        if (b === IAC) this.#mode = 'sbiac';
        else if (this.#sb.length < MAX_SUBNEGOTIATION) this.#sb.push(b);
        return;
      case 'sbiac':
        if (b === IAC) {
          this.#sb.push(IAC);
          this.#mode = 'sb';
        } else {
          this.#mode = 'data';
          if (b === SE) this.#subnegotiation(this.#sb);
        }
        return;
    }
  }

  #data(b: number): void {
    // Before negotiation ends nothing is a 3270 record; after, a runaway record is dropped whole.
    if (!this.#ready) return;
    if (this.#record.length < MAX_RECORD) this.#record.push(b);
    else this.#record.length = MAX_RECORD + 1;
  }

  #option(verb: number, opt: number): void {
    const theirs = this.#him.get(opt);
    const ours = this.#us.get(opt);
    switch (verb) {
      case WILL:
        if (theirs === undefined) return this.#send(IAC, DONT, opt); // TN3270E and anything else: refused
        if (theirs === 'no') this.#send(IAC, DO, opt);
        this.#him.set(opt, 'yes');
        if (opt === OPT.TTYPE && theirs !== 'yes') this.#send(IAC, SB, OPT.TTYPE, TTYPE_SEND, IAC, SE);
        return this.#maybeReady();
      case DO:
        if (ours === undefined) return this.#send(IAC, WONT, opt);
        if (ours === 'no') this.#send(IAC, WILL, opt);
        this.#us.set(opt, 'yes');
        return this.#maybeReady();
      case WONT:
        if (theirs === undefined) return;
        if (theirs === 'yes') this.#send(IAC, DONT, opt);
        this.#him.set(opt, 'no');
        return this.#end('PLUMBLINE NEEDS A TN3270 CLIENT (TERMINAL-TYPE, END-OF-RECORD AND BINARY).');
      case DONT:
        if (ours === undefined) return;
        if (ours === 'yes') this.#send(IAC, WONT, opt);
        this.#us.set(opt, 'no');
        return this.#end('PLUMBLINE NEEDS A TN3270 CLIENT (TERMINAL-TYPE, END-OF-RECORD AND BINARY).');
    }
  }

  #subnegotiation(sb: number[]): void {
    if (sb[0] !== OPT.TTYPE || sb[1] !== TTYPE_IS) return;
    const offered = Buffer.from(sb.slice(2)).toString('ascii').toUpperCase();
    if (!TERMINAL_TYPE.test(offered)) {
      // RFC 1091: ask again for the client's next type; the same one twice means its list is exhausted.
      if (offered === this.#lastOffered) return this.#end(`TERMINAL TYPE ${offered} IS NOT SUPPORTED: USE IBM-3278-2.`);
      this.#lastOffered = offered;
      return this.#send(IAC, SB, OPT.TTYPE, TTYPE_SEND, IAC, SE);
    }
    this.#terminalType = offered;
    for (const opt of OURS) {
      if (this.#him.get(opt) === 'no') {
        this.#send(IAC, DO, opt);
        this.#him.set(opt, 'want');
      }
      if (this.#us.get(opt) === 'no') {
        this.#send(IAC, WILL, opt);
        this.#us.set(opt, 'want');
      }
    }
    this.#maybeReady();
  }

  #maybeReady(): void {
    if (this.#ready || this.#terminalType === undefined) return;
    if (![...this.#him.values(), ...this.#us.values()].every((s) => s === 'yes')) return;
    this.#ready = true;
    this.#draw();
  }

  #draw(): void {
    this.#screen = render(this.#session, this.#store);
    this.#send(...frameRecord(encodeScreen(this.#screen)));
  }

  #endOfRecord(): void {
    const record = this.#record;
    this.#record = [];
    if (!this.#ready || !this.#screen) return;
    try {
      if (record.length > MAX_RECORD) throw new DataStreamError('TOO_LONG', 'INBOUND RECORD TOO LONG');
      const next = press(this.#session, parseInbound(Uint8Array.from(record)), this.#screen, this.#store);
      if (next === 'exit') return this.#end();
      this.#session = next;
    } catch (e) {
      const message = e instanceof DataStreamError ? e.message : 'SYSTEM ERROR - TRANSACTION ABENDED';
      this.#session = { ...this.#session, message, alarm: true };
    }
    this.#draw();
  }
}

/** Starts the green screen on 127.0.0.1 (by default). close() also ends every open session. */
export async function startGreenScreen(opts: GreenScreenOptions = {}): Promise<GreenScreen> {
  if (opts.store && opts.operatorPassword !== undefined) {
    throw new GreenScreenOptionsError('startGreenScreen: give operatorPassword to the Store you pass, not beside it.');
  }
  const store = opts.store ?? new Store(opts.operatorPassword === undefined ? {} : { operatorPassword: opts.operatorPassword });
  const host = opts.host ?? '127.0.0.1';
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setNoDelay(true);
    new Connection(socket, store, Math.max(0, opts.latencyMs ?? 0));
  });
  const { port, authority } = await listenOn(server, opts.port ?? 0, host);
  return {
    url: `tn3270://${authority}`,
    port,
    store,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        for (const s of sockets) s.destroy();
      }),
  };
}
