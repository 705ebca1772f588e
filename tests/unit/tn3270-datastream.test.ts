// The 3270 screen applies a host's data stream and answers keys as the IBM 3270 Data Stream Programmer's Reference (GA23-0059) says, byte for byte.
import { describe, expect, it } from 'vitest';
import { decodeCp037, encodeCp037 } from '../../terminal-agent/cp037.ts';
import { decodeAddress, encodeAddress } from '../../terminal-agent/datastream.ts';
import { Screen } from '../../terminal-agent/screen.ts';

// Every vector below is written by hand from GA23-0059: commands EW=F5 W=F1 EAU=6F WSF=F3 RM=F6; orders SBA=11 SF=1D
// SFE=29 SA=28 MF=2C IC=13 PT=05 RA=3C EUA=12 GE=08; the 6-bit address code (appendix C) 40 C1..C9 4A..4F 50 D1..D9
// 5A..5F 60 61 E2..E9 6A..6F F0..F9 7A..7F; field attributes 60 protected, F0 protected+numeric (autoskip),
// 40 unprotected, 4C unprotected non-display, 50 unprotected numeric; AIDs Enter=7D PF10=7A PF24=4C PA1=6C Clear=6D.
// Text in cp037: S=E2 I=C9 G=C7 N=D5 O=D6 U=E4 E=C5 R=D9 P=D7 A=C1 M=D4 T=E3 ':'=7A '*'=5C '1'=F1 space=40.
const SIGN_ON = [
  0xf5, 0xc3, // Erase/Write, WCC: reset, keyboard restore, reset MDT
  0x11, 0x40, 0x40, 0x1d, 0x60, 0xe2, 0xc9, 0xc7, 0xd5, 0x40, 0xd6, 0xd5, // @0: protected "SIGN ON"
  0x11, 0xc1, 0x50, 0x1d, 0x60, 0xe4, 0xe2, 0xc5, 0xd9, 0x7a, // @80 (row 2): protected "USER:"
  0x1d, 0x40, 0x13, // @86: unprotected field, cursor at 87
  0x11, 0xc1, 0x60, 0x1d, 0xf0, // @96: autoskip — the user field is 87..95
  0x11, 0xc2, 0x60, 0x1d, 0x60, 0xd7, 0xc1, 0xe2, 0xe2, 0x7a, // @160 (row 3): "PASS:"
  0x1d, 0x4c, // @166: unprotected non-display
  0x11, 0xc2, 0xf0, 0x1d, 0xf0, // @176: autoskip — the password field is 167..175
  0x11, 0xc3, 0xf0, 0x1d, 0x60, 0xc1, 0xd4, 0xd6, 0xe4, 0xd5, 0xe3, 0x7a, // @240 (row 4): "AMOUNT:"
  0x1d, 0x50, // @248: unprotected numeric
  0x11, 0xc4, 0xc4, 0x1d, 0xf0, // @260: autoskip — the amount field is 249..259
];

function signOn(): Screen {
  const s = new Screen();
  s.locked = true;
  expect(s.apply(Uint8Array.from(SIGN_ON))).toEqual({ command: 'EW', restored: true });
  return s;
}

const pad = (t: string) => t.padEnd(80, ' ');

describe('cp037 and buffer addresses', () => {
  it('maps the characters of code page 037 both ways', () => {
    expect([...encodeCp037('Aa0 $@|!¢')]).toEqual([0xc1, 0x81, 0xf0, 0x40, 0x5b, 0x7c, 0x4f, 0x5a, 0x4a]);
    expect(decodeCp037([0xc8, 0xc5, 0xd3, 0xd3, 0xd6, 0x6b, 0x40, 0xa6, 0x96, 0x99, 0x93, 0x84])).toBe('HELLO, world');
    expect(() => encodeCp037('€')).toThrow(/code page 037 has no "€"/);
  });

  it('decodes 12-bit coded and 14-bit binary addresses and encodes 12-bit', () => {
    expect(decodeAddress(0xc1, 0x50)).toBe(80);
    expect(decodeAddress(0x5d, 0x7f)).toBe(1919);
    expect(decodeAddress(0x00, 0x50)).toBe(80);
    expect(decodeAddress(0x07, 0x7f)).toBe(1919);
    expect(encodeAddress(80)).toEqual([0xc1, 0x50]);
    expect(encodeAddress(1919)).toEqual([0x5d, 0x7f]);
    expect(encodeAddress(0)).toEqual([0x40, 0x40]);
  });
});

describe('writing a screen', () => {
  it('lays out fields, text and the cursor from an Erase/Write, and restores the keyboard', () => {
    const s = signOn();
    expect(s.lines().slice(0, 4)).toEqual([pad(' SIGN ON'), pad(' USER:'), pad(' PASS:'), pad(' AMOUNT:')]);
    expect(s.cursor).toBe(87);
    expect(s.locked).toBe(false);
    const fs = s.fields();
    expect(fs.map((f) => f.at)).toEqual([0, 80, 86, 96, 160, 166, 176, 240, 248, 260]);
    const user = fs[2];
    expect(user).toMatchObject({ start: 87, length: 9, protected: false, numeric: false, hidden: false });
    expect(fs[3]).toMatchObject({ protected: true, numeric: true });
    expect(fs[5]).toMatchObject({ start: 167, hidden: true });
    expect(fs[8]).toMatchObject({ start: 249, length: 11, numeric: true, protected: false });
    expect(fs[0]).toMatchObject({ protected: true, intensified: false });
  });

  it('reads a 14-bit address, repeats to an address (RA), skips SA, takes SFE and MF attributes and GE characters', () => {
    const s = new Screen();
    s.apply(Uint8Array.from([
      0xf5, 0x02,
      0x11, 0x00, 0x50, 0x3c, 0x40, 0xc5, 0x5c, // @80 RA '*' up to @5 — wraps round the whole screen: 1845 stars
      0x11, 0x00, 0x00, 0x29, 0x02, 0xc0, 0xe8, 0x41, 0xf2, 0xc1, // @0 SFE (FA E8 protected intensified, highlight), 'A'
      0x28, 0x42, 0xf2, 0xc2, // SA colour (read past), 'B'
      0x08, 0xad, // GE: the character AD itself
      0x11, 0x40, 0x40, 0x2c, 0x01, 0xc0, 0x60, // MF at @0: the attribute becomes 60
    ]));
    expect(s.fields()[0]).toMatchObject({ at: 0, attribute: 0x60, intensified: false, protected: true });
    expect(s.lines()[0]?.slice(0, 5)).toBe(' AB' + decodeCp037([0xad]) + '*');
    expect(s.buffer[80]).toBe(0x5c);
    expect(s.lines()[23]).toBe('*'.repeat(80));
  });

  it('puts the cursor with IC, moves with PT, erases unprotected positions with EUA and EAU', () => {
    const s = signOn();
    s.type('OP1');
    s.apply(Uint8Array.from([0xf1, 0x02, 0x11, 0x40, 0x40, 0x05, 0xc1])); // Write: from @0, PT to the user field, 'A'
    expect(s.lines()[1]?.slice(0, 12)).toBe(' USER: AP1  ');
    s.apply(Uint8Array.from([0xf1, 0x02, 0x11, 0x40, 0x40, 0x12, 0x40, 0x40])); // EUA round the whole screen
    expect(s.lines()[1]).toBe(pad(' USER:'));
    expect(s.lines()[0]).toBe(pad(' SIGN ON'));
    s.moveCursor(249);
    s.type('12');
    s.locked = true;
    expect(s.apply(Uint8Array.from([0x6f]))).toEqual({ command: 'EAU', restored: true });
    expect(s.lines()[3]).toBe(pad(' AMOUNT:'));
    expect(s.cursor).toBe(87);
    expect(s.fields().every((f) => !f.modified)).toBe(true);
    s.apply(Uint8Array.from([0xf1, 0x02, 0x11, 0xc2, 0x60, 0x13])); // IC at @160
    expect(s.cursor).toBe(160);
  });

  it('refuses an unknown command, a cut-short order and an address off the screen, naming each', () => {
    expect(() => new Screen().apply(Uint8Array.of(0x99))).toThrow(/unknown 3270 command 0x99/);
    expect(() => new Screen().apply(Uint8Array.of(0xf5, 0x02, 0x11, 0x40))).toThrow(/SBA at byte 2 is cut short/);
    expect(() => new Screen().apply(Uint8Array.of(0xf5, 0x02, 0x11, 0x3f, 0xff))).toThrow(/addressed 16383, outside a 24×80 screen/);
  });

  it('answers Read Partition Query with a Query Reply: Summary and Usable Area (24×80)', () => {
    const r = new Screen().apply(Uint8Array.of(0xf3, 0x00, 0x05, 0x01, 0xff, 0x02));
    const reply = [...(r.reply ?? [])];
    expect(reply.slice(0, 7)).toEqual([0x88, 0x00, 0x06, 0x81, 0x80, 0x80, 0x81]);
    expect(reply.slice(7, 11)).toEqual([0x00, 0x17, 0x81, 0x81]);
    expect(reply.slice(13, 17)).toEqual([0x00, 0x50, 0x00, 0x18]);
    expect(reply.length).toBe(7 + 0x17);
  });
});

describe('the keyboard and AIDs', () => {
  it('types into the field under the cursor and Enter sends AID, cursor and the modified field (Read Modified)', () => {
    const s = signOn();
    s.type('OP1');
    // 7D; cursor @90 = C1 5A; SBA @87 = C1 D7; "OP1"
    expect([...s.aid('ENTER')]).toEqual([0x7d, 0xc1, 0x5a, 0x11, 0xc1, 0xd7, 0xd6, 0xd7, 0xf1]);
    expect(s.locked).toBe(true);
    expect(() => s.type('X')).toThrow(/keyboard is locked/);
    s.apply(Uint8Array.of(0xf1, 0x02));
    expect(s.locked).toBe(false);
  });

  it('skips past an autoskip attribute when a field fills, and tabs to the next input field', () => {
    const s = signOn();
    s.type('ABCDEFGHI');
    expect(s.cursor).toBe(167);
    s.type('pw');
    expect(s.lines()[2]).toBe(pad(' PASS:')); // non-display: typed but not shown
    s.tab();
    expect(s.cursor).toBe(249);
    s.tab();
    expect(s.cursor).toBe(87);
  });

  it('refuses a letter in a numeric field and any key in a protected one (input inhibited)', () => {
    const s = signOn();
    s.moveCursor(249);
    expect(() => s.type('1A')).toThrow(/numeric field at row 4, column 10 refuses "A"/);
    expect(s.lines()[3]?.slice(0, 10)).toBe(' AMOUNT: 1');
    s.moveCursor(1);
    expect(() => s.type('x')).toThrow(/row 1, column 2\) is in a protected field/);
    s.moveCursor(80);
    expect(() => s.type('x')).toThrow(/on a field attribute/);
  });

  it('sends PF keys with their codes and PA keys and Clear as a short read; Clear erases the screen', () => {
    const pf10 = signOn();
    expect([...pf10.aid('PF10')]).toEqual([0x7a, 0xc1, 0xd7]);
    const pf24 = signOn();
    expect(pf24.aid('PF24')[0]).toBe(0x4c);
    const pa1 = signOn();
    pa1.type('X');
    expect([...pa1.aid('PA1')]).toEqual([0x6c]);
    const clear = signOn();
    expect([...clear.aid('CLEAR')]).toEqual([0x6d]);
    expect(clear.lines().every((l) => l === pad(''))).toBe(true);
    expect(() => signOn().aid('PF25')).toThrow(/no PF25 key/);
  });

  it("answers the host's Read Modified with the last AID and the modified fields", () => {
    const s = signOn();
    s.moveCursor(249);
    s.type('7');
    const r = s.apply(Uint8Array.of(0xf6));
    // no AID yet: 60; cursor @250 = C3 7A; SBA @249 = C3 F9; "7"
    expect([...(r.reply ?? [])]).toEqual([0x60, 0xc3, 0x7a, 0x11, 0xc3, 0xf9, 0xf7]);
  });
});
