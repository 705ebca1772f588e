// The 3270 data stream's codes and buffer addresses (docs/design/terminal.md, "The terminal surface"), from the IBM 3270
// Data Stream Programmer's Reference (GA23-0059): chapter 3 (commands, the WCC), chapter 4 (orders, buffer addressing),
// appendix C (the 6-bit address code table), chapter 3's inbound operations (AIDs, read replies), chapter 5 (structured fields, Read Partition Query) and chapter 6 (Query Replies). terminal-agent/screen.ts applies them.

/** Write commands as TN3270 hosts send them: the SNA code and the local (channel) code are both accepted (GA23-0059 §3.1). */
export const CMD = {
  W: [0xf1, 0x01],
  EW: [0xf5, 0x05],
  EWA: [0x7e, 0x0d],
  EAU: [0x6f, 0x0f],
  WSF: [0xf3, 0x11],
  RB: [0xf2, 0x02],
  RM: [0xf6, 0x06],
  RMA: [0x6e, 0x0e],
} as const;
export type Command = keyof typeof CMD;

export function commandOf(byte: number): Command | null {
  for (const [name, codes] of Object.entries(CMD)) if ((codes as readonly number[]).includes(byte)) return name as Command;
  return null;
}

/** Write Control Character bits (GA23-0059 §3.4, bit 0 is the most significant). */
export const WCC = { RESET: 0x40, START_PRINTER: 0x08, ALARM: 0x04, KEYBOARD_RESTORE: 0x02, RESET_MDT: 0x01 } as const;

/** Orders (GA23-0059 §4.3). */
export const ORDER = { PT: 0x05, GE: 0x08, SBA: 0x11, EUA: 0x12, IC: 0x13, SF: 0x1d, SA: 0x28, SFE: 0x29, MF: 0x2c, RA: 0x3c } as const;

/** Field attribute bits (GA23-0059 §4.4.6.2): protected, numeric, display (2 bits), MDT. */
export const FA = { PROTECTED: 0x20, NUMERIC: 0x10, DISPLAY_MASK: 0x0c, INTENSIFIED: 0x08, NON_DISPLAY: 0x0c, MDT: 0x01 } as const;
/** The extended attribute type that carries a basic field attribute in SFE and MF (GA23-0059 §4.4.5). */
export const XA_FIELD = 0xc0;

/** Attention identifiers (GA23-0059 §3.5.6). */
export const AID: Readonly<Record<string, number>> = {
  NO_AID: 0x60,
  STRUCTURED_FIELD: 0x88,
  ENTER: 0x7d,
  CLEAR: 0x6d,
  PA1: 0x6c,
  PA2: 0x6e,
  PA3: 0x6b,
  PF1: 0xf1, PF2: 0xf2, PF3: 0xf3, PF4: 0xf4, PF5: 0xf5, PF6: 0xf6, PF7: 0xf7, PF8: 0xf8, PF9: 0xf9,
  PF10: 0x7a, PF11: 0x7b, PF12: 0x7c,
  PF13: 0xc1, PF14: 0xc2, PF15: 0xc3, PF16: 0xc4, PF17: 0xc5, PF18: 0xc6, PF19: 0xc7, PF20: 0xc8, PF21: 0xc9,
  PF22: 0x4a, PF23: 0x4b, PF24: 0x4c,
};
export type AidKey = 'ENTER' | 'CLEAR' | `PA${1 | 2 | 3}` | `PF${number}`;

/** Whether an AID gets a short read (the AID byte alone: PA keys and Clear, GA23-0059 §3.5.6). */
export function isShortRead(key: AidKey): boolean {
  return key === 'CLEAR' || key.startsWith('PA');
}

/**
 * The 6-bit code of a 12-bit buffer address (GA23-0059 appendix C): each 6-bit half is sent as the EBCDIC graphic
 * at that index, so the byte is always printable.
 */
export const ADDRESS_CODE: readonly number[] = [
  0x40, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0x4a, 0x4b, 0x4c, 0x4d, 0x4e, 0x4f,
  0x50, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
  0x60, 0x61, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
  0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,
];

/**
 * A buffer address from its two bytes (GA23-0059 §4.3.1): when the first byte's top two bits are 00 the address is
 * 14-bit binary; otherwise each byte's low 6 bits are one half of a 12-bit address.
 */
export function decodeAddress(b1: number, b2: number): number {
  if ((b1 & 0xc0) === 0) return ((b1 & 0x3f) << 8) | b2;
  return ((b1 & 0x3f) << 6) | (b2 & 0x3f);
}

/** A buffer address as a terminal sends it inbound: 12-bit coded (every 24×80 address fits). */
export function encodeAddress(address: number): [number, number] {
  return [ADDRESS_CODE[(address >> 6) & 0x3f] ?? 0x40, ADDRESS_CODE[address & 0x3f] ?? 0x40];
}
