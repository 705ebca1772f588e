// The 3270 screen (docs/design/terminal.md, "The terminal surface"): the presentation buffer with its field attributes,
// the outbound data stream applied to it, the keyboard (cursor, tab, typing, numeric lock, keyboard lock) and the
// inbound replies an AID key produces. Pure: bytes in, bytes out; terminal-agent/session.ts carries them over telnet.
// Codes and section numbers: terminal-agent/datastream.ts (IBM GA23-0059).
import { HandrailError } from '../shared/errors.ts';
import { ebcdicByte, ebcdicChar, unencodable } from './cp037.ts';
import { AID, FA, ORDER, WCC, XA_FIELD, commandOf, decodeAddress, encodeAddress, isShortRead, type AidKey } from './datastream.ts';

export type Tn3270Code = 'TN3270_PROTOCOL' | 'INPUT_INHIBITED';

/** A data stream the codec cannot apply (TN3270_PROTOCOL), or a key the keyboard refuses (INPUT_INHIBITED). */
export class Tn3270Error extends HandrailError<Tn3270Code> {
  override readonly name = 'Tn3270Error';
}

/** One field: its attribute's address, the address of its first character and its length (GA23-0059 §1.3). */
export interface Field {
  /** Address of the attribute byte. */
  at: number;
  /** Address of the first character (the one after the attribute). */
  start: number;
  length: number;
  attribute: number;
  protected: boolean;
  numeric: boolean;
  intensified: boolean;
  hidden: boolean;
  modified: boolean;
}

/** What applying one outbound record did. `reply` is an inbound record to send back (a read command, a query). */
export interface Applied {
  command: string;
  reply?: Uint8Array;
  /** The record was a write that restored the keyboard (WCC keyboard restore, or EAU). */
  restored: boolean;
}

const ROWS = 24;
const COLS = 80;
/** Characters a numeric field accepts (GA23-0059 §4.4.6.2: the numeric lock admits 0–9, '.', '-' and DUP). */
const NUMERIC = /^[0-9.\-]$/;

export class Screen {
  readonly rows = ROWS;
  readonly cols = COLS;
  readonly size = ROWS * COLS;
  /** EBCDIC character at each address (0 = null). */
  readonly buffer = new Uint8Array(ROWS * COLS);
  /** Field attribute at each address, or -1 where there is none. */
  readonly attrs = new Int16Array(ROWS * COLS).fill(-1);
  cursor = 0;
  /** The keyboard is locked from an AID until the host restores it (GA23-0059 §3.4, WCC bit 6). */
  locked = false;
  /** The last AID sent, for a host's Read Modified (GA23-0059 §3.6.2). */
  lastAid: number = AID.NO_AID ?? 0x60;
  /** How many writes the host has made: a new screen is a write after the latest AID. */
  writes = 0;

  #wrap(a: number): number {
    return ((a % this.size) + this.size) % this.size;
  }

  /** Whether any field attribute is on the screen (an unformatted screen has none, GA23-0059 §1.3). */
  get formatted(): boolean {
    return this.attrs.some((a) => a >= 0);
  }

  /** The fields in address order. */
  fields(): Field[] {
    const starts: number[] = [];
    for (let a = 0; a < this.size; a++) if ((this.attrs[a] ?? -1) >= 0) starts.push(a);
    return starts.map((at, i) => {
      const next = starts[(i + 1) % starts.length] ?? at;
      const length = next > at ? next - at - 1 : this.size - at - 1 + next;
      const attribute = this.attrs[at] ?? 0;
      return {
        at,
        start: this.#wrap(at + 1),
        length,
        attribute,
        protected: (attribute & FA.PROTECTED) !== 0,
        numeric: (attribute & FA.NUMERIC) !== 0,
        intensified: (attribute & FA.DISPLAY_MASK) === FA.INTENSIFIED,
        hidden: (attribute & FA.DISPLAY_MASK) === FA.NON_DISPLAY,
        modified: (attribute & FA.MDT) !== 0,
      };
    });
  }

  /** The field an address is in (its attribute's address), or null on an unformatted screen. */
  fieldAt(address: number): Field | null {
    const fs = this.fields();
    if (!fs.length) return null;
    let best: Field | null = null;
    for (const f of fs) if (f.at <= address) best = f;
    return best ?? fs[fs.length - 1] ?? null;
  }

  /** A field's characters as text, nulls as spaces (hidden fields too: the caller decides what to show). */
  fieldText(f: Field): string {
    let s = '';
    for (let i = 0; i < f.length; i++) s += this.#display(this.buffer[this.#wrap(f.start + i)] ?? 0);
    return s;
  }

  #display(b: number): string {
    return b < 0x40 ? ' ' : ebcdicChar(b);
  }

  /** The screen as 24 lines of 80, the way a terminal shows it: attributes and nulls blank, non-display fields blank. */
  lines(): string[] {
    const hidden = new Uint8Array(this.size);
    for (const f of this.fields()) if (f.hidden) for (let i = 0; i < f.length; i++) hidden[this.#wrap(f.start + i)] = 1;
    const out: string[] = [];
    for (let r = 0; r < this.rows; r++) {
      let s = '';
      for (let c = 0; c < this.cols; c++) {
        const a = r * this.cols + c;
        s += (this.attrs[a] ?? -1) >= 0 || hidden[a] ? ' ' : this.#display(this.buffer[a] ?? 0);
      }
      out.push(s);
    }
    return out;
  }

  // ---- outbound: the host writes (GA23-0059 chapters 3–5) ----

  /** Apply one outbound record. Throws TN3270_PROTOCOL naming the byte and offset it cannot apply. */
  apply(record: Uint8Array): Applied {
    const cmdByte = record[0];
    if (cmdByte === undefined) return { command: 'empty', restored: false };
    const command = commandOf(cmdByte);
    if (!command) throw new Tn3270Error('TN3270_PROTOCOL', `the host sent an unknown 3270 command 0x${hex(cmdByte)}`);
    switch (command) {
      case 'EW':
      case 'EWA':
        this.#erase();
        return this.#write(record, command);
      case 'W':
        return this.#write(record, command);
      case 'EAU':
        this.#eraseUnprotected();
        this.writes++;
        return { command, restored: true };
      case 'WSF':
        return this.#structuredFields(record);
      case 'RB':
        return { command, reply: this.readBuffer(), restored: false };
      case 'RM':
      case 'RMA':
        return { command, reply: this.#readModified(this.lastAid, command === 'RMA'), restored: false };
    }
  }

  #erase(): void {
    this.buffer.fill(0);
    this.attrs.fill(-1);
    this.cursor = 0;
  }

  /** EAU (GA23-0059 §3.5.4): nulls in every unprotected field, MDTs reset, keyboard restored, cursor to the first. */
  #eraseUnprotected(): void {
    for (const f of this.fields()) {
      if (f.protected) continue;
      for (let i = 0; i < f.length; i++) this.buffer[this.#wrap(f.start + i)] = 0;
      this.attrs[f.at] = f.attribute & ~FA.MDT;
    }
    this.cursor = this.#nextUnprotected(this.size - 1) ?? 0;
    this.locked = false;
  }

  #write(rec: Uint8Array, command: string): Applied {
    const wcc = rec[1] ?? 0;
    if (wcc & WCC.RESET_MDT) for (let a = 0; a < this.size; a++) if ((this.attrs[a] ?? -1) >= 0) this.attrs[a] = (this.attrs[a] ?? 0) & ~FA.MDT;
    let ba = command === 'W' ? this.cursor : 0;
    let cursorSet: number | null = null;
    let lastWasData = false;
    const need = (i: number, n: number, what: string): void => {
      if (i + n > rec.length) throw new Tn3270Error('TN3270_PROTOCOL', `the host's ${what} at byte ${i} is cut short`);
    };
    const put = (a: number, b: number): void => {
      this.buffer[a] = b;
      this.attrs[a] = -1;
    };
    let i = 2;
    while (i < rec.length) {
      const b = rec[i] ?? 0;
      switch (b) {
        case ORDER.SF:
          need(i, 2, 'SF');
          this.attrs[ba] = rec[i + 1] ?? 0;
          this.buffer[ba] = 0;
          ba = this.#wrap(ba + 1);
          i += 2;
          lastWasData = false;
          break;
        case ORDER.SFE: {
          need(i, 2, 'SFE');
          const n = rec[i + 1] ?? 0;
          need(i, 2 + 2 * n, 'SFE');
          let fa = 0;
          for (let k = 0; k < n; k++) if (rec[i + 2 + 2 * k] === XA_FIELD) fa = rec[i + 3 + 2 * k] ?? 0;
          this.attrs[ba] = fa;
          this.buffer[ba] = 0;
          ba = this.#wrap(ba + 1);
          i += 2 + 2 * n;
          lastWasData = false;
          break;
        }
        case ORDER.MF: {
          need(i, 2, 'MF');
          const n = rec[i + 1] ?? 0;
          need(i, 2 + 2 * n, 'MF');
          if ((this.attrs[ba] ?? -1) >= 0) {
            for (let k = 0; k < n; k++) if (rec[i + 2 + 2 * k] === XA_FIELD) this.attrs[ba] = rec[i + 3 + 2 * k] ?? 0;
            ba = this.#wrap(ba + 1);
          }
          i += 2 + 2 * n;
          lastWasData = false;
          break;
        }
        case ORDER.SBA:
          need(i, 3, 'SBA');
          ba = this.#address(rec, i + 1);
          i += 3;
          lastWasData = false;
          break;
        case ORDER.SA:
          // A character attribute (colour, highlighting): this terminal shows none, so it is read past.
          need(i, 3, 'SA');
          i += 3;
          lastWasData = false;
          break;
        case ORDER.IC:
          cursorSet = ba;
          i += 1;
          lastWasData = false;
          break;
        case ORDER.PT: {
          // PT after data nulls the rest of the field first (GA23-0059 §4.3.3), then moves to the next unprotected field.
          if (lastWasData) {
            for (let a = ba; (this.attrs[a] ?? -1) < 0; a = this.#wrap(a + 1)) {
              this.buffer[a] = 0;
              if (this.#wrap(a + 1) === 0) break;
            }
          }
          ba = this.#nextUnprotected(ba) ?? 0;
          i += 1;
          lastWasData = false;
          break;
        }
        case ORDER.RA: {
          need(i, 4, 'RA');
          const stop = this.#address(rec, i + 1);
          let ch = rec[i + 3] ?? 0;
          let used = 4;
          if (ch === ORDER.GE) {
            need(i, 5, 'RA');
            ch = rec[i + 4] ?? 0;
            used = 5;
          }
          let a = ba;
          do {
            put(a, ch);
            a = this.#wrap(a + 1);
          } while (a !== stop);
          ba = stop;
          i += used;
          lastWasData = false;
          break;
        }
        case ORDER.EUA: {
          need(i, 3, 'EUA');
          const stop = this.#address(rec, i + 1);
          let a = ba;
          do {
            const f = this.fieldAt(a);
            if ((this.attrs[a] ?? -1) < 0 && f && !f.protected) this.buffer[a] = 0;
            a = this.#wrap(a + 1);
          } while (a !== stop);
          ba = stop;
          i += 3;
          lastWasData = false;
          break;
        }
        case ORDER.GE:
          need(i, 2, 'GE');
          put(ba, rec[i + 1] ?? 0);
          ba = this.#wrap(ba + 1);
          i += 2;
          lastWasData = true;
          break;
        default:
          put(ba, b);
          ba = this.#wrap(ba + 1);
          i += 1;
          lastWasData = true;
      }
    }
    if (cursorSet !== null) this.cursor = cursorSet;
    const restored = (wcc & WCC.KEYBOARD_RESTORE) !== 0;
    if (restored) this.locked = false;
    this.writes++;
    return { command, restored };
  }

  #address(rec: Uint8Array, i: number): number {
    const a = decodeAddress(rec[i] ?? 0, rec[i + 1] ?? 0);
    if (a >= this.size) throw new Tn3270Error('TN3270_PROTOCOL', `the host addressed ${a}, outside a ${this.rows}×${this.cols} screen`);
    return a;
  }

  /** The first character address of the next unprotected field after `from`, or null when there is none. */
  #nextUnprotected(from: number): number | null {
    const fs = this.fields().filter((f) => !f.protected && f.length > 0);
    if (!fs.length) return null;
    const after = fs.find((f) => f.start > from) ?? fs[0];
    return after ? after.start : null;
  }

  /**
   * WSF (GA23-0059 chapter 5): each structured field is a 2-byte length (itself included) and an ID. Read Partition
   * (0x01) Query or Query List for partition 0xFF is answered with a Query Reply (chapter 6): Summary and Usable Area,
   * the least a host needs to size its screens. Any other structured field is read past and not answered.
   */
  #structuredFields(rec: Uint8Array): Applied {
    let i = 1;
    let reply: Uint8Array | undefined;
    while (i + 2 < rec.length) {
      let len = ((rec[i] ?? 0) << 8) | (rec[i + 1] ?? 0);
      if (len === 0) len = rec.length - i; // a length of 0 means "to the end of the record" (GA23-0059 §5.1)
      if (len < 3 || i + len > rec.length) throw new Tn3270Error('TN3270_PROTOCOL', `the host's structured field at byte ${i} claims length ${len}`);
      const id = rec[i + 2];
      if (id === 0x01 && rec[i + 3] === 0xff && (rec[i + 4] === 0x02 || rec[i + 4] === 0x03)) reply = queryReply();
      i += len;
    }
    return { command: 'WSF', ...(reply ? { reply } : {}), restored: false };
  }

  // ---- the keyboard (GA23-0059 §3.3 and the 3270 operator's model) ----

  #inputField(): Field | null {
    if (this.locked) throw new Tn3270Error('INPUT_INHIBITED', 'the keyboard is locked: the host has not answered the last key');
    if (!this.formatted) return null;
    if ((this.attrs[this.cursor] ?? -1) >= 0) throw new Tn3270Error('INPUT_INHIBITED', `the cursor (row ${this.#row(this.cursor)}, column ${this.#col(this.cursor)}) is on a field attribute`);
    const f = this.fieldAt(this.cursor);
    if (f?.protected) throw new Tn3270Error('INPUT_INHIBITED', `the cursor (row ${this.#row(this.cursor)}, column ${this.#col(this.cursor)}) is in a protected field`);
    return f;
  }

  #row(a: number): number {
    return Math.floor(a / this.cols) + 1;
  }

  #col(a: number): number {
    return (a % this.cols) + 1;
  }

  /** Move the cursor to an address. */
  moveCursor(address: number): void {
    this.cursor = this.#wrap(address);
  }

  /** Tab: the cursor to the first character of the next unprotected field (home when there is none). */
  tab(): void {
    this.cursor = this.#nextUnprotected(this.cursor) ?? 0;
  }

  /**
   * Type at the cursor as an operator does: into an unprotected field only, digits only in a numeric one (the numeric
   * lock), the field's MDT set; past the field's end the cursor skips to the next unprotected field. A refused key
   * throws INPUT_INHIBITED and nothing after it is typed.
   */
  type(text: string): void {
    const bad = unencodable(text);
    if (bad.length) throw new Tn3270Error('INPUT_INHIBITED', `code page 037 has no ${bad.map((c) => JSON.stringify(c)).join(', ')}`);
    for (const ch of text) {
      const f = this.#inputField();
      if (f?.numeric && !NUMERIC.test(ch)) {
        throw new Tn3270Error('INPUT_INHIBITED', `the numeric field at row ${this.#row(f.start)}, column ${this.#col(f.start)} refuses ${JSON.stringify(ch)}`);
      }
      this.buffer[this.cursor] = ebcdicByte(ch) ?? 0x40;
      if (f) this.attrs[f.at] = f.attribute | FA.MDT;
      this.cursor = this.#wrap(this.cursor + 1);
      if ((this.attrs[this.cursor] ?? -1) >= 0) {
        const next = this.fieldAt(this.cursor);
        // An autoskip attribute (protected and numeric) sends the cursor on to the next input field.
        if (next && next.protected && next.numeric) this.tab();
      }
    }
  }

  /** Erase EOF: nulls from the cursor to the end of its field, the field marked modified. */
  eraseEof(): void {
    const f = this.#inputField();
    const end = f ? f.start + f.length : this.size;
    const from = f && this.cursor < f.start ? this.cursor + this.size : this.cursor;
    for (let a = from; a < end; a++) this.buffer[this.#wrap(a)] = 0;
    if (f) this.attrs[f.at] = f.attribute | FA.MDT;
  }

  /**
   * Press an AID key: the inbound record to send, and the keyboard locks until the host restores it. Enter and the
   * PF keys send a Read Modified reply; PA keys and Clear a short read (the AID alone), Clear also erasing the screen.
   */
  aid(key: AidKey): Uint8Array {
    const code = AID[key];
    if (code === undefined) throw new Tn3270Error('INPUT_INHIBITED', `there is no ${key} key on a 3278`);
    if (this.locked) throw new Tn3270Error('INPUT_INHIBITED', `the keyboard is locked: ${key} cannot be sent`);
    this.lastAid = code;
    this.locked = true;
    if (key === 'CLEAR') this.#erase();
    return isShortRead(key) ? Uint8Array.of(code) : this.#readModified(code, false);
  }

  /**
   * Read Modified (GA23-0059 §3.6.2): AID, cursor address, then each modified field as SBA, the address of its first
   * character and its characters with nulls left out. An unformatted screen sends its characters without SBA.
   * `all` (Read Modified All) also sends the fields of a short-read AID.
   */
  #readModified(aid: number, all: boolean): Uint8Array {
    const out: number[] = [aid];
    const short = aid === AID.CLEAR || aid === AID.PA1 || aid === AID.PA2 || aid === AID.PA3;
    if (short && !all) return Uint8Array.from(out);
    out.push(...encodeAddress(this.cursor));
    if (!this.formatted) {
      for (const b of this.buffer) if (b !== 0) out.push(b);
      return Uint8Array.from(out);
    }
    for (const f of this.fields()) {
      if (!f.modified) continue;
      out.push(ORDER.SBA, ...encodeAddress(f.start));
      for (let k = 0; k < f.length; k++) {
        const b = this.buffer[this.#wrap(f.start + k)] ?? 0;
        if (b !== 0) out.push(b);
      }
    }
    return Uint8Array.from(out);
  }

  /** Read Buffer (GA23-0059 §3.6.1): AID, cursor, every position, each attribute as SF and its byte. */
  readBuffer(): Uint8Array {
    const out: number[] = [this.lastAid, ...encodeAddress(this.cursor)];
    for (let a = 0; a < this.size; a++) {
      const attr = this.attrs[a] ?? -1;
      if (attr >= 0) out.push(ORDER.SF, attr);
      else out.push(this.buffer[a] ?? 0);
    }
    return Uint8Array.from(out);
  }
}

/**
 * The Query Reply to Read Partition Query (GA23-0059 chapter 6): AID 0x88, then a Summary (QCODE 0x80) listing the
 * replies sent, and Usable Area (QCODE 0x81): 12/14-bit addressing, 80 × 24 cells, a 1920-byte buffer.
 */
export function queryReply(): Uint8Array {
  const summary = [0x00, 0x06, 0x81, 0x80, 0x80, 0x81];
  const usable = [
    0x00, 0x17, 0x81, 0x81,
    0x01, 0x00, // flags: 12/14-bit addressing allowed; no variable cells
    0x00, COLS, 0x00, ROWS,
    0x00, // units: inches
    0x00, 0x0a, 0x02, 0xe5, // Xr: 10/741 inch between cells
    0x00, 0x02, 0x00, 0x6f, // Yr: 2/111 inch between rows
    0x09, 0x0c, // cell width and height in units
    0x07, 0x80, // buffer size 1920
  ];
  return Uint8Array.of(AID.STRUCTURED_FIELD ?? 0x88, ...summary, ...usable);
}

function hex(b: number): string {
  return b.toString(16).padStart(2, '0');
}
