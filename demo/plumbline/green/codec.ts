// The green screen's own small TN3270 codec: telnet framing, cp037, the 3270 orders a host writes and the inbound
// read-modified record it reads. demo/ imports nothing from the product (docs/design/demo.md, "Demo apps"), so the
// mock host carries its own copy; the product's codec lives in terminal-agent/ and is tested against this host.
// References: RFC 854 (telnet), RFC 885 (EOR), RFC 856 (BINARY), RFC 1091 (TERMINAL-TYPE), RFC 1576 (TN3270),
// IBM GA23-0059 "3270 Data Stream Programmer's Reference" (orders, WCC, attributes, AIDs, buffer addresses).

/** Telnet commands (RFC 854) and EOR (RFC 885). */
export const IAC = 0xff;
export const DONT = 0xfe;
export const DO = 0xfd;
export const WONT = 0xfc;
export const WILL = 0xfb;
export const SB = 0xfa;
export const SE = 0xf0;
export const EOR = 0xef;

/** Telnet options: BINARY (RFC 856), TERMINAL-TYPE (RFC 1091), END-OF-RECORD (RFC 885), TN3270E (RFC 2355). */
export const OPT = { BINARY: 0x00, TTYPE: 0x18, EOR: 0x19, TN3270E: 0x28 } as const;
/** TERMINAL-TYPE subnegotiation codes (RFC 1091). */
export const TTYPE_IS = 0x00;
export const TTYPE_SEND = 0x01;

/** Commands (SNA code points, as TN3270 hosts send them) and orders (GA23-0059 ch. 3 and 4). */
export const CMD_ERASE_WRITE = 0xf5;
export const ORDER_SBA = 0x11;
export const ORDER_SF = 0x1d;
export const ORDER_IC = 0x13;

/** Attention identifiers (GA23-0059 ch. 3, "Attention Identifier (AID)"). */
export const AID = {
  ENTER: 0x7d,
  CLEAR: 0x6d,
  PA1: 0x6c,
  PA2: 0x6e,
  PA3: 0x6b,
} as const;
const PF_AIDS = [
  0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0x7a, 0x7b, 0x7c,
  0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0x4a, 0x4b, 0x4c,
];

/** The PF key number (1-24) an AID byte stands for, or undefined when it is not a PF key. */
export function pfNumber(aid: number): number | undefined {
  const i = PF_AIDS.indexOf(aid);
  return i < 0 ? undefined : i + 1;
}

/** A key's name as a person says it: ENTER, PF10, PA1, CLEAR, or the byte in hex. */
export function aidName(aid: number): string {
  const pf = pfNumber(aid);
  if (pf !== undefined) return `PF${pf}`;
  const named = Object.entries(AID).find(([, v]) => v === aid);
  return named ? named[0] : `AID X'${aid.toString(16).toUpperCase().padStart(2, '0')}'`;
}

/**
 * The six-bit code table (GA23-0059, "Addressing": buffer addresses, WCC and attribute bytes are sent as
 * graphic EBCDIC characters; index = six-bit value).
 */
const SIX_BIT = [
  0x40, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
  0x50, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
  0x60, 0x61, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
  0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,
];

function sixBit(value: number): number {
  const b = SIX_BIT[value & 0x3f];
  if (b === undefined) throw new RangeError(`six-bit value ${value} out of range`);
  return b;
}

/** A 12-bit buffer address as two bytes (the host writes 24x80 screens, 1920 cells, so 12 bits always suffice). */
export function encodeAddress(address: number): [number, number] {
  if (!Number.isInteger(address) || address < 0 || address > 0xfff) throw new RangeError(`buffer address ${address} out of range`);
  return [sixBit(address >> 6), sixBit(address)];
}

/** Two address bytes: 14-bit when the top two bits of the first are 00, else 12-bit (GA23-0059, "Buffer Addressing"). */
export function decodeAddress(b1: number, b2: number): number {
  return (b1 & 0xc0) === 0 ? ((b1 & 0x3f) << 8) | b2 : ((b1 & 0x3f) << 6) | (b2 & 0x3f);
}

/** WCC bits (GA23-0059, "Write Control Character"): sound alarm, keyboard restore, reset MDT. */
export const WCC_ALARM = 0x04;
export const WCC_RESTORE = 0x02;
export const WCC_RESET_MDT = 0x01;
export function encodeWcc(bits: number): number {
  return sixBit(bits);
}

/** Field attribute bits (GA23-0059, "Field Attributes"). */
export const FA_PROTECTED = 0x20;
export const FA_NUMERIC = 0x10;
export const FA_INTENSIFIED = 0x08;
export const FA_NONDISPLAY = 0x0c;
export function encodeAttribute(bits: number): number {
  return sixBit(bits);
}

// Code page 037 (US/Canada EBCDIC), byte -> Unicode, the table Python's encodings/cp037.py and ICU agree on.
const CP037 =
  '\u0000\u0001\u0002\u0003\u009c\u0009\u0086\u007f\u0097\u008d\u008e\u000b\u000c\u000d\u000e\u000f' +
  '\u0010\u0011\u0012\u0013\u009d\u0085\u0008\u0087\u0018\u0019\u0092\u008f\u001c\u001d\u001e\u001f' +
  '\u0080\u0081\u0082\u0083\u0084\u000a\u0017\u001b\u0088\u0089\u008a\u008b\u008c\u0005\u0006\u0007' +
  '\u0090\u0091\u0016\u0093\u0094\u0095\u0096\u0004\u0098\u0099\u009a\u009b\u0014\u0015\u009e\u001a' +
  ' \u00a0\u00e2\u00e4\u00e0\u00e1\u00e3\u00e5\u00e7\u00f1\u00a2.<(+|' +
  '&\u00e9\u00ea\u00eb\u00e8\u00ed\u00ee\u00ef\u00ec\u00df!$*);\u00ac' +
  '-/\u00c2\u00c4\u00c0\u00c1\u00c3\u00c5\u00c7\u00d1\u00a6,%_>?' +
  '\u00f8\u00c9\u00ca\u00cb\u00c8\u00cd\u00ce\u00cf\u00cc`:#@\u0027="' +
  '\u00d8abcdefghi\u00ab\u00bb\u00f0\u00fd\u00fe\u00b1' +
  '\u00b0jklmnopqr\u00aa\u00ba\u00e6\u00b8\u00c6\u00a4' +
  '\u00b5~stuvwxyz\u00a1\u00bf\u00d0\u00dd\u00de\u00ae' +
  '^\u00a3\u00a5\u00b7\u00a9\u00a7\u00b6\u00bc\u00bd\u00be[]\u00af\u00a8\u00b4\u00d7' +
  '{ABCDEFGHI\u00ad\u00f4\u00f6\u00f2\u00f3\u00f5' +
  '}JKLMNOPQR\u00b9\u00fb\u00fc\u00f9\u00fa\u00ff' +
  '\u005c\u00f7STUVWXYZ\u00b2\u00d4\u00d6\u00d2\u00d3\u00d5' +
  '0123456789\u00b3\u00db\u00dc\u00d9\u00da\u009f';
const FROM_UNICODE = new Map<string, number>([...CP037].map((ch, i) => [ch, i]));
const EBCDIC_QUESTION = 0x6f;

/** Text to cp037 bytes; a character cp037 lacks becomes '?'. */
export function toEbcdic(text: string): Buffer {
  return Buffer.from([...text].map((ch) => FROM_UNICODE.get(ch) ?? EBCDIC_QUESTION));
}

/** cp037 bytes to text; a null (X'00', what an unfilled field holds) becomes nothing. */
export function fromEbcdic(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) if (b !== 0) out += CP037[b] ?? '';
  return out;
}

/** One 3270 record on the wire: 0xFF doubled (RFC 854 IAC escaping), then IAC EOR (RFC 885). */
export function frameRecord(record: Uint8Array): Buffer {
  const out: number[] = [];
  for (const b of record) {
    out.push(b);
    if (b === IAC) out.push(IAC);
  }
  out.push(IAC, EOR);
  return Buffer.from(out);
}

/** What the client sent with an AID (GA23-0059, "Read Modified"): the key, the cursor and each modified field. */
export interface Inbound {
  aid: number;
  /** Buffer address of the cursor; undefined for the short read of PA keys and Clear. */
  cursor: number | undefined;
  /** Data start address (the cell after the field's attribute) -> the text typed there, nulls removed. */
  fields: Map<number, string>;
}

/** Parses one unframed inbound record. Malformed input is a typed error the host answers on the message line. */
export function parseInbound(record: Uint8Array): Inbound {
  const aid = record[0];
  if (aid === undefined) throw new DataStreamError('EMPTY', 'EMPTY INBOUND RECORD');
  const fields = new Map<number, string>();
  if (record.length < 3) return { aid, cursor: undefined, fields };
  const cursor = decodeAddress(record[1] ?? 0, record[2] ?? 0);
  let i = 3;
  while (i < record.length) {
    if (record[i] !== ORDER_SBA || i + 2 >= record.length) {
      throw new DataStreamError('BAD_ORDER', `UNEXPECTED BYTE X'${(record[i] ?? 0).toString(16).toUpperCase()}' AT OFFSET ${i}`);
    }
    const address = decodeAddress(record[i + 1] ?? 0, record[i + 2] ?? 0);
    let j = i + 3;
    while (j < record.length && record[j] !== ORDER_SBA) j++;
    fields.set(address, fromEbcdic(record.subarray(i + 3, j)));
    i = j;
  }
  return { aid, cursor, fields };
}

/** A client sent something the host cannot read: the code says what, the message is shown on the screen. */
export class DataStreamError extends Error {
  override readonly name = 'DataStreamError';
  constructor(readonly code: 'EMPTY' | 'BAD_ORDER' | 'TOO_LONG', message: string) {
    super(message);
  }
}
