// Telnet for TN3270 (docs/design/terminal.md, "The terminal surface"): option negotiation and record framing, as a pure
// state machine fed bytes in whatever pieces TCP delivers them. No socket here: terminal-agent/session.ts owns that.
//
// - RFC 854: IAC (255) starts a command; IAC IAC is a data byte 255. WILL 251, WONT 252, DO 253, DONT 254, SB 250, SE 240.
// - RFC 855: an option is refused with WONT (to DO) or DONT (to WILL); a request for the mode already in force is not
//   answered, so two sides never loop (RFC 1143's rule, in its simplest form).
// - RFC 856 BINARY (option 0), RFC 885 END-OF-RECORD (option 25; IAC EOR, 239, ends a record), RFC 1091 TERMINAL-TYPE
//   (option 24; SB TTYPE SEND(1) asks, SB TTYPE IS(0) <name> answers).
// - RFC 1576: a 3270 session is TTYPE IBM-3278-2 (24×80), EOR and BINARY in both directions; each 3270 data stream
//   record ends with IAC EOR.
// - RFC 2355 TN3270E (option 40) is not spoken: it is refused like any other option, and RFC 2355 §3 lets a server fall
//   back to RFC 1576 when the client refuses.
// Several commands in one packet, or one command split across packets, are the same to this parser.

export const IAC = 255;
export const DONT = 254;
export const DO = 253;
export const WONT = 252;
export const WILL = 251;
export const SB = 250;
export const SE = 240;
export const EOR_CMD = 239;

export const OPT_BINARY = 0;
export const OPT_TTYPE = 24;
export const OPT_EOR = 25;
export const OPT_TN3270E = 40;
const TTYPE_IS = 0;
const TTYPE_SEND = 1;

/** The terminal type this client announces (RFC 1576 §2: model 2, 24 rows of 80). */
export const TERMINAL_TYPE = 'IBM-3278-2';

/** Options this client performs itself (answers WILL to DO) and accepts from the host (answers DO to WILL). */
const WE_WILL = new Set([OPT_BINARY, OPT_TTYPE, OPT_EOR]);
const THEY_MAY = new Set([OPT_BINARY, OPT_EOR]);

export interface TelnetEvents {
  /** Bytes to send to the host now (negotiation answers). */
  send: Uint8Array[];
  /** Complete 3270 records, IAC IAC already unescaped, IAC EOR removed. */
  records: Uint8Array[];
  /** Options the host asked for and this client refused, by number, for the log. */
  refused: number[];
}

type State = 'data' | 'iac' | 'opt' | 'sb' | 'sb_iac';

export class TelnetParser {
  #state: State = 'data';
  #verb = 0;
  #record: number[] = [];
  #sub: number[] = [];
  /** Options in force on our side (we WILL) and on the host's (it WILL). */
  readonly local = new Set<number>();
  readonly remote = new Set<number>();
  ttypeSent = false;

  /** True once the session is in 3270 mode (RFC 1576 §2): terminal type sent, EOR and BINARY both ways. */
  get in3270(): boolean {
    return this.ttypeSent && [OPT_EOR, OPT_BINARY].every((o) => this.local.has(o) && this.remote.has(o));
  }

  /** Feed what arrived; returns what to send, the records completed and the options refused. */
  feed(chunk: ArrayLike<number>): TelnetEvents {
    const out: TelnetEvents = { send: [], records: [], refused: [] };
    for (let i = 0; i < chunk.length; i++) this.#byte(chunk[i] ?? 0, out);
    return out;
  }

  #byte(b: number, out: TelnetEvents): void {
    switch (this.#state) {
      case 'data':
        if (b === IAC) this.#state = 'iac';
        else this.#record.push(b);
        return;
      case 'iac':
        this.#state = 'data';
        if (b === IAC) this.#record.push(IAC);
        else if (b === EOR_CMD) {
          out.records.push(Uint8Array.from(this.#record));
          this.#record = [];
        } else if (b === WILL || b === WONT || b === DO || b === DONT) {
          this.#verb = b;
          this.#state = 'opt';
        } else if (b === SB) {
          this.#sub = [];
          this.#state = 'sb';
        }
        // NOP, GA, DM, AYT…: nothing a 3270 session needs (RFC 854 lists them; they carry no data).
        return;
      case 'opt':
        this.#state = 'data';
        this.#negotiate(this.#verb, b, out);
        return;
      case 'sb':
        if (b === IAC) this.#state = 'sb_iac';
        else this.#sub.push(b);
        return;
      case 'sb_iac':
        if (b === SE) {
          this.#state = 'data';
          this.#subnegotiation(out);
        } else {
          if (b === IAC) this.#sub.push(IAC);
          this.#state = 'sb';
        }
        return;
    }
  }

  #negotiate(verb: number, opt: number, out: TelnetEvents): void {
    if (verb === DO) {
      if (WE_WILL.has(opt)) {
        if (!this.local.has(opt)) {
          this.local.add(opt);
          out.send.push(Uint8Array.of(IAC, WILL, opt));
        }
      } else {
        out.refused.push(opt);
        out.send.push(Uint8Array.of(IAC, WONT, opt));
      }
    } else if (verb === WILL) {
      if (THEY_MAY.has(opt)) {
        if (!this.remote.has(opt)) {
          this.remote.add(opt);
          out.send.push(Uint8Array.of(IAC, DO, opt));
        }
      } else {
        out.refused.push(opt);
        out.send.push(Uint8Array.of(IAC, DONT, opt));
      }
    } else if (verb === DONT) {
      if (this.local.delete(opt)) out.send.push(Uint8Array.of(IAC, WONT, opt));
    } else if (verb === WONT) {
      if (this.remote.delete(opt)) out.send.push(Uint8Array.of(IAC, DONT, opt));
    }
  }

  #subnegotiation(out: TelnetEvents): void {
    const [opt, cmd] = this.#sub;
    if (opt === OPT_TTYPE && cmd === TTYPE_SEND && this.local.has(OPT_TTYPE)) {
      const name = [...TERMINAL_TYPE].map((c) => c.charCodeAt(0));
      out.send.push(Uint8Array.of(IAC, SB, OPT_TTYPE, TTYPE_IS, ...name, IAC, SE));
      this.ttypeSent = true;
    }
  }
}

/** One outbound 3270 record as telnet bytes: every 0xFF doubled (RFC 854), then IAC EOR (RFC 885). */
export function frameRecord(record: ArrayLike<number>): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < record.length; i++) {
    const b = record[i] ?? 0;
    out.push(b);
    if (b === IAC) out.push(IAC);
  }
  out.push(IAC, EOR_CMD);
  return Uint8Array.from(out);
}
