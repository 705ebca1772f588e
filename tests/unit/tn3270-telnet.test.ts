// The terminal negotiates a TN3270 session as RFC 854/855/856/885/1091/1576 say, refuses what it does not speak, and frames records on IAC EOR.
import { describe, expect, it } from 'vitest';
import { TelnetParser, frameRecord } from '../../terminal-agent/telnet.ts';

// Byte vectors written from the RFCs: IAC=FF WILL=FB WONT=FC DO=FD DONT=FE SB=FA SE=F0 EOR=EF;
// options BINARY=00 TERMINAL-TYPE=18 END-OF-RECORD=19 TN3270E=28 ECHO=01; TTYPE SEND=01 IS=00.
const bytes = (...b: number[]) => Uint8Array.from(b);
const sent = (p: TelnetParser, ...chunks: number[][]) => chunks.flatMap((c) => p.feed(c).send.flatMap((s) => [...s]));

describe('telnet option negotiation', () => {
  it('answers a host that batches every option of RFC 1576 in one packet, each once and in order', () => {
    const p = new TelnetParser();
    const packet = [0xff, 0xfd, 0x18, 0xff, 0xfd, 0x19, 0xff, 0xfb, 0x19, 0xff, 0xfd, 0x00, 0xff, 0xfb, 0x00];
    expect(sent(p, packet)).toEqual([0xff, 0xfb, 0x18, 0xff, 0xfb, 0x19, 0xff, 0xfd, 0x19, 0xff, 0xfb, 0x00, 0xff, 0xfd, 0x00]);
    expect(p.in3270).toBe(false); // the terminal type has not been asked for yet
    // SB TERMINAL-TYPE SEND → SB TERMINAL-TYPE IS "IBM-3278-2" (ASCII, RFC 1091)
    expect(sent(p, [0xff, 0xfa, 0x18, 0x01, 0xff, 0xf0])).toEqual([
      0xff, 0xfa, 0x18, 0x00, 0x49, 0x42, 0x4d, 0x2d, 0x33, 0x32, 0x37, 0x38, 0x2d, 0x32, 0xff, 0xf0,
    ]);
    expect(p.in3270).toBe(true);
  });

  it('handles a command split across packets the same as one packet', () => {
    const p = new TelnetParser();
    expect(sent(p, [0xff], [0xfd], [0x18, 0xff, 0xfa, 0x18], [0x01, 0xff], [0xf0])).toEqual([
      0xff, 0xfb, 0x18, 0xff, 0xfa, 0x18, 0x00, 0x49, 0x42, 0x4d, 0x2d, 0x33, 0x32, 0x37, 0x38, 0x2d, 0x32, 0xff, 0xf0,
    ]);
  });

  it('refuses TN3270E and anything else it does not speak, WONT to DO and DONT to WILL (RFC 855)', () => {
    const p = new TelnetParser();
    const ev = p.feed([0xff, 0xfd, 0x28, 0xff, 0xfb, 0x01, 0xff, 0xfd, 0x01]);
    expect(ev.send.flatMap((s) => [...s])).toEqual([0xff, 0xfc, 0x28, 0xff, 0xfe, 0x01, 0xff, 0xfc, 0x01]);
    expect(ev.refused).toEqual([0x28, 0x01, 0x01]);
  });

  it('does not answer a request for a mode already in force, and acknowledges a withdrawal (no loops)', () => {
    const p = new TelnetParser();
    expect(sent(p, [0xff, 0xfd, 0x19])).toEqual([0xff, 0xfb, 0x19]);
    expect(sent(p, [0xff, 0xfd, 0x19])).toEqual([]);
    expect(sent(p, [0xff, 0xfe, 0x19])).toEqual([0xff, 0xfc, 0x19]);
    expect(sent(p, [0xff, 0xfe, 0x19])).toEqual([]);
    expect(sent(p, [0xff, 0xfb, 0x00])).toEqual([0xff, 0xfd, 0x00]);
    expect(sent(p, [0xff, 0xfc, 0x00])).toEqual([0xff, 0xfe, 0x00]);
  });

  it('does not send its terminal type before it has agreed to TERMINAL-TYPE', () => {
    const p = new TelnetParser();
    expect(sent(p, [0xff, 0xfa, 0x18, 0x01, 0xff, 0xf0])).toEqual([]);
  });
});

describe('record framing', () => {
  it('ends a record at IAC EOR, unescapes IAC IAC and keeps records apart across packets', () => {
    const p = new TelnetParser();
    const a = p.feed([0xf5, 0xc3, 0xc1, 0xff, 0xff, 0xc2]);
    expect(a.records).toEqual([]);
    const b = p.feed([0xff, 0xef, 0xf1, 0xc2, 0xff]);
    expect(b.records).toEqual([bytes(0xf5, 0xc3, 0xc1, 0xff, 0xc2)]);
    const c = p.feed([0xef]);
    expect(c.records).toEqual([bytes(0xf1, 0xc2)]);
  });

  it('sends a record with every FF doubled and IAC EOR after it', () => {
    expect([...frameRecord([0x7d, 0xff, 0x40])]).toEqual([0x7d, 0xff, 0xff, 0x40, 0xff, 0xef]);
  });

  it('reads negotiation between the bytes of a record without mixing them in', () => {
    const p = new TelnetParser();
    const ev = p.feed([0xf5, 0xff, 0xfd, 0x19, 0xc3, 0xff, 0xf1, 0xff, 0xef]); // IAC NOP (F1) is read past
    expect(ev.records).toEqual([bytes(0xf5, 0xc3)]);
    expect(ev.send.flatMap((s) => [...s])).toEqual([0xff, 0xfb, 0x19]);
  });
});
