// PLUMBLINE's green screen is a real TN3270 host: Debian's s3270 signs on and posts a hold on it, the web judge sees
// the hold, web and terminal agree on already-held, errors show on the message line, and the telnet answers match
// byte vectors written by hand from RFC 854/885/856/1091/1576/2355 and the IBM 3270 data-stream reference.
import { spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { startGreenScreen } from '../../demo/plumbline/green/server.ts';
import { Store } from '../../demo/plumbline/store.ts';
import {
  decodeAddress, encodeAddress, fromEbcdic, frameRecord, parseInbound, toEbcdic,
} from '../../demo/plumbline/green/codec.ts';
import { S3270 } from '../fixtures/s3270.ts';

const PASSWORD = 'test-only-pw';
const MESSAGE_ROW = 22; // row 23, 0-based

let bank: Bank;
let terminal: S3270 | undefined;

beforeEach(async () => {
  bank = await startBank({ terminal: true, operatorPassword: PASSWORD });
});
afterEach(async () => {
  await terminal?.quit();
  terminal = undefined;
  await bank.close();
});

function hostPort(): string {
  return (bank.terminalUrl ?? '').replace('tn3270://', '');
}

/** Connects s3270 to the green screen and signs on as the demo operator. */
async function signOn(t: S3270, password = PASSWORD): Promise<string[]> {
  await t.keys(`Connect(${hostPort()})`, 'Wait(10,InputField)', 'String("OP1001")', 'Tab', `String("${password}")`);
  await t.screen();
  await t.do('Enter');
  return t.screen();
}

/** From the inquiry screen to the member record, the cursor in the first share's SEL field. */
async function toMember(t: S3270, member: string): Promise<string[]> {
  await t.do(`String("${member}")`);
  await t.do('PF(5)');
  return t.screen();
}

/** From the inquiry screen to the hold form of the member's n-th share: S in that line's SEL field, as an operator types it. */
async function toHoldForm(t: S3270, member: string, n: number): Promise<string[]> {
  const record = await toMember(t, member);
  for (let i = 1; i < n; i++) await t.do('Tab');
  await t.do('String("S")');
  await t.do('Enter');
  await t.screen();
  return record;
}

async function judge(share: string): Promise<{ held: boolean; reason: string | null; confirmation: string | null; postPresses: number }> {
  const r = await fetch(`${bank.url}/_judge/holds/${share}`);
  expect(r.status).toBe(200);
  return (await r.json()) as { held: boolean; reason: string | null; confirmation: string | null; postPresses: number };
}

/** The web bank's sign-on and post, as the browser's forms send them. */
async function webPost(share: string, reason: string): Promise<string> {
  const signon = await fetch(`${bank.url}/signon`, {
    method: 'POST',
    body: new URLSearchParams({ opid: 'OP1001', pwd: PASSWORD, branch: '01' }),
    redirect: 'manual',
  });
  const cookie = (signon.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  expect(cookie).toMatch(/^PLUMBSESS=/);
  const post = await fetch(`${bank.url}/post`, {
    method: 'POST',
    headers: { cookie },
    body: new URLSearchParams({ share, reason, note: '' }),
  });
  return post.text();
}

describe('s3270 on the green screen', () => {
  it('signs on, finds a member, posts a hold with F10, and the web judge confirms it', async () => {
    terminal = new S3270();
    const inquiry = await signOn(terminal);
    expect(inquiry[0]).toContain('MBRINQ');
    const record = await toHoldForm(terminal, '400118', 2);
    expect(record[6]).toMatch(/^ SEL {2}SHARE ID +TYPE +BALANCE +STATUS/);
    expect(record[8]).toMatch(/^ {6}400118-S0005 +SHARE DRAFT +\S*3,842\.17 +ACTIVE/);
    await terminal.keys('String("1")', 'Tab', 'String("COURT ORDER 26-1")', 'PF(8)');
    const review = await terminal.screen();
    expect(review[0]).toContain('HLDREV');
    expect(review.join('\n')).toContain('REASON      LEGAL');
    expect(review[23]).toContain('F10=Post Hold');
    expect((await judge('400118-S0005')).postPresses).toBe(0);
    await terminal.do('PF(10)');
    const result = (await terminal.screen()).join('\n');
    const confirmation = /HOLD POSTED CONFIRMATION (HX-\d{6})/.exec(result)?.[1];
    expect(confirmation).toBeDefined();
    expect(await judge('400118-S0005')).toEqual({ held: true, reason: 'LEGAL', confirmation, postPresses: 1 });
  });

  it('accepts s3270 with its default model (a 3279 -E type) on the 24x80 screen', async () => {
    terminal = new S3270(undefined);
    const inquiry = await signOn(terminal);
    expect(inquiry[0]).toContain('MBRINQ');
  });

  it('shows a hold posted on the web as already held, and refuses a second one (the press counted)', async () => {
    expect(await webPost('400445-S0001', 'LEGAL')).toContain('HOLD POSTED CONFIRMATION');
    terminal = new S3270();
    await signOn(terminal);
    const record = await toHoldForm(terminal, '400445', 1);
    expect(record.join('\n')).toMatch(/400445-S0001 .* HELD LEGAL/);
    await terminal.keys('String("5")', 'PF(8)', 'PF(10)');
    const result = await terminal.screen();
    expect(result.join('\n')).toContain('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
    const status = await judge('400445-S0001');
    expect(status).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 2 });
  });

  it('a hold posted on the terminal is already held on the web', async () => {
    terminal = new S3270();
    await signOn(terminal);
    await toHoldForm(terminal, '400337', 1);
    await terminal.keys('String("1")', 'PF(8)', 'PF(10)');
    expect((await terminal.screen()).join('\n')).toContain('HOLD POSTED CONFIRMATION');
    expect(await webPost('400337-S0001', 'OTHER')).toContain('HOLD NOT POSTED: SHARE ALREADY HELD (LEGAL)');
    expect(await judge('400337-S0001')).toMatchObject({ held: true, reason: 'LEGAL', postPresses: 2 });
  });

  it('a wrong password gives the sign-on error line, and no password is ever shown (non-display field)', async () => {
    terminal = new S3270();
    const after = await signOn(terminal, 'not-the-pw');
    expect(after[0]).toContain('SIGNON');
    expect(after[MESSAGE_ROW]).toContain('INVALID OPERATOR ID OR PASSWORD');
    expect(after[5]).toContain('OP1001'); // the operator id is kept; the cursor waits in the emptied password field
    await terminal.do(`String("${PASSWORD}")`);
    await terminal.screen();
    await terminal.do('Enter');
    expect((await terminal.screen())[0]).toContain('MBRINQ');
    // Screens were read right after each password was typed, before Enter: neither ever appears.
    expect(terminal.screens.length).toBeGreaterThanOrEqual(4);
    for (const s of terminal.screens) {
      expect(s).not.toContain('not-the-pw');
      expect(s).not.toContain(PASSWORD);
    }
  });

  it('numeric fields are validated by the host: letters in member number and reason code give error lines', async () => {
    terminal = new S3270();
    await signOn(terminal);
    await terminal.do('String("40O118")'); // a letter O: s3270 lets it through, as a 3278 without numeric lock does
    await terminal.do('PF(5)');
    const inquiry = await terminal.screen();
    expect(inquiry[0]).toContain('MBRINQ');
    expect(inquiry[MESSAGE_ROW]).toContain('MEMBER NUMBER MUST BE 6 DIGITS');
    await terminal.do('EraseEOF');
    await toHoldForm(terminal, '400118', 1);
    await terminal.keys('String("L")', 'PF(8)');
    const hold = await terminal.screen();
    expect(hold[0]).toContain('HLDENT');
    expect(hold[MESSAGE_ROW]).toContain('REASON CODE MUST BE NUMERIC');
    await terminal.keys('EraseEOF', 'String("9")', 'PF(8)');
    expect((await terminal.screen())[MESSAGE_ROW]).toContain('INVALID REASON CODE');
    expect(await judge('400118-S0001')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('the member record has a SEL field per share: S beside one opens its hold form; none, two or another letter are refused', async () => {
    terminal = new S3270();
    await signOn(terminal);
    const record = await toMember(terminal, '400118');
    expect(record[MESSAGE_ROW - 2]).toContain('TYPE S BESIDE A SHARE AND PRESS ENTER');
    await terminal.do('Enter');
    expect((await terminal.screen())[MESSAGE_ROW]).toContain('TYPE S BESIDE A SHARE');
    await terminal.keys('String("S")', 'Tab', 'String("S")', 'Enter');
    const two = await terminal.screen();
    expect(two[0]).toContain('MBRDTL');
    expect(two[MESSAGE_ROW]).toContain('SELECT ONE SHARE AT A TIME');
    // What was typed survives the error, as on a real list: clear the first line's S and type X beside the second.
    await terminal.keys('Home', 'EraseEOF', 'Tab', 'EraseEOF', 'String("X")', 'Enter');
    expect((await terminal.screen())[MESSAGE_ROW]).toContain('X IS NOT A SELECTION: TYPE S BESIDE 400118-S0005');
    await terminal.keys('Home', 'Tab', 'EraseEOF', 'String("s")', 'Enter');
    const hold = (await terminal.screen()).join('\n');
    expect(hold).toContain('HLDENT');
    expect(hold).toMatch(/SHARE ID +400118-S0005/);
    expect(await judge('400118-S0005')).toMatchObject({ held: false, postPresses: 0 });
  });

  it('F12 cancels back and an inactive key says so without leaving the screen', async () => {
    terminal = new S3270();
    await signOn(terminal);
    await terminal.do('PF(7)');
    expect((await terminal.screen())[MESSAGE_ROW]).toContain('PF7 IS NOT ACTIVE ON THIS SCREEN');
    await toHoldForm(terminal, '400118', 1);
    await terminal.do('PF(12)');
    expect((await terminal.screen())[0]).toContain('MBRDTL');
  });
});

/** A raw TCP client that reads exactly the bytes a test expects next. */
class Raw {
  readonly socket: Socket;
  #buf = Buffer.alloc(0);
  #wake: (() => void) | undefined;
  closed = false;
  constructor(port: number) {
    this.socket = createConnection({ host: '127.0.0.1', port });
    this.socket.on('data', (d: Buffer) => {
      this.#buf = Buffer.concat([this.#buf, d]);
      this.#wake?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.#wake?.();
    });
    this.socket.on('error', () => undefined);
  }
  async take(n: number): Promise<Buffer> {
    const deadline = Date.now() + 5000;
    while (this.#buf.length < n) {
      if (this.closed || Date.now() > deadline) throw new Error(`wanted ${n} bytes, have ${this.#buf.toString('hex')}`);
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    const out = this.#buf.subarray(0, n);
    this.#buf = this.#buf.subarray(n);
    return out;
  }
  /** Everything up to and including the next IAC EOR. */
  async record(): Promise<Buffer> {
    for (;;) {
      const at = this.#buf.indexOf(Buffer.from([0xff, 0xef]));
      if (at >= 0) return this.take(at + 2);
      await this.take(this.#buf.length + 1).then((b) => {
        this.#buf = Buffer.concat([b, this.#buf]);
      });
    }
  }
  async closedNow(): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(this.closed).toBe(true);
  }
  rest(): Buffer {
    return this.#buf;
  }
}

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

describe('s3270 keys that do not post', () => {
  it('on review only F10 posts: Enter asks for F10, F12 goes back to the form with what was typed', async () => {
    terminal = new S3270();
    await signOn(terminal);
    await toHoldForm(terminal, '400118', 1);
    await terminal.keys('String("3")', 'Tab', 'String("WRIT 7")', 'Enter', 'Enter');
    const review = await terminal.screen();
    expect(review[0]).toContain('HLDREV');
    expect(review[MESSAGE_ROW]).toContain('PRESS F10 TO POST THE HOLD OR F12 TO CANCEL');
    expect(await judge('400118-S0001')).toMatchObject({ held: false, postPresses: 0 });
    await terminal.do('PF(12)');
    const form = await terminal.screen();
    expect(form[0]).toContain('HLDENT');
    expect(form.join('\n')).toMatch(/REASON CODE \. +3 /);
    expect(form.join('\n')).toContain('WRIT 7');
  });


  it('Clear redraws the screen; F3 on sign-on ends the session', async () => {
    terminal = new S3270();
    await signOn(terminal);
    await terminal.do('String("12")');
    await terminal.do('Clear');
    await terminal.do('Wait(10,InputField)');
    const again = await terminal.screen();
    expect(again[0]).toContain('MBRINQ');
    expect(again[23]).toContain('F5=Search');
    await terminal.do('PF(3)'); // inquiry: F3 signs off
    expect((await terminal.screen())[0]).toContain('SIGNON');
    await terminal.run('PF(3)');
    await terminal.run('Wait(5,Disconnect)');
    const r = await terminal.run('Query(ConnectionState)');
    expect(r.data.join(' ')).toContain('not-connected');
  });
});

describe('latency', () => {
  it('the green screen answers after the bank\'s latency, and s3270 waits for it', async () => {
    const slow = await startBank({ terminal: true, operatorPassword: PASSWORD, latencyMs: 300 });
    const t = new S3270();
    try {
      await t.keys(`Connect(${(slow.terminalUrl ?? '').replace('tn3270://', '')})`, 'Wait(10,InputField)', 'String("OP1001")', 'Tab', `String("${PASSWORD}")`);
      const started = Date.now();
      await t.do('Enter');
      await t.do('Wait(10,InputField)');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect((await t.screen())[0]).toContain('MBRINQ');
    } finally {
      await t.quit();
      await slow.close();
    }
  });
});

describe('npm run bank', () => {
  it('starts the web app and the green screen and prints both addresses', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'demo/plumbline/main.ts', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const two = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('tn3270://')) resolve();
      });
      child.on('exit', () => reject(new Error(`bank exited: ${out}`)));
    });
    await two;
    child.removeAllListeners('exit');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    expect(out).toMatch(/^PLUMBLINE listening on http:\/\/127\.0\.0\.1:\d+\nPLUMBLINE green screen \(TN3270\) on tn3270:\/\/127\.0\.0\.1:\d+\n/);
  });
});

describe('telnet and 3270 on the wire (vectors from the RFCs and GA23-0059)', () => {
  it('negotiates batched options, refuses TN3270E, draws sign-on, and reads a read-modified sign-on', async () => {
    const raw = new Raw(Number(hostPort().split(':')[1]));
    // RFC 1091: the host asks first: IAC DO TERMINAL-TYPE.
    expect((await raw.take(3)).toString('hex')).toBe('fffd18');
    // One packet: WILL TERMINAL-TYPE, WILL TN3270E, DO TN3270E (RFC 2355's option 40, offered unasked).
    raw.socket.write(hex('fffb18 fffb28 fffd28'));
    // SB TERMINAL-TYPE SEND SE; DONT TN3270E; WONT TN3270E.
    expect((await raw.take(12)).toString('hex')).toBe('fffa1801fff0' + 'fffe28' + 'fffc28');
    // SB TERMINAL-TYPE IS "IBM-3278-2-E" SE.
    raw.socket.write(Buffer.concat([hex('fffa1800'), Buffer.from('IBM-3278-2-E', 'ascii'), hex('fff0')]));
    // The host's batch: DO EOR, WILL EOR, DO BINARY, WILL BINARY (RFC 885, RFC 856).
    expect((await raw.take(12)).toString('hex')).toBe('fffd19' + 'fffb19' + 'fffd00' + 'fffb00');
    raw.socket.write(hex('fffb19 fffd19 fffb00 fffd00'));
    const screen = await raw.record();
    // Erase/Write (SNA F5), WCC C3 (restore keyboard + reset MDT), SBA 40 40 (address 0), SF 60 (protected), "SIGNON".
    expect(screen.subarray(0, 13).toString('hex')).toBe('f5c3' + '114040' + '1d60' + 'e2c9c7d5d6d5');
    // The password field: SBA to address 585 (row 8 col 26: C9 C9), SF 4C (unprotected, non-display).
    expect(screen.includes(hex('11c9c91d4c'))).toBe(true);
    // The branch field: SBA to 745 (row 10 col 26: 4B E9), SF 50 (unprotected, numeric), "01".
    expect(screen.includes(hex('114be91d50f0f1'))).toBe(true);
    // Ends with SBA to 426 (row 6 col 27: C6 6A) + IC, then IAC EOR.
    expect(screen.subarray(-6).toString('hex')).toBe('11c66a13ffef');

    // Enter (7D), cursor at 598 (C9 D6), opid at 426 "OP1001", password at 586 "test-only-pw"; IAC EOR.
    raw.socket.write(hex('7d c9d6 11c66a d6d7f1f0f0f1 11c94a a385a2a360969593a86097a6 ffef'));
    const next = await raw.record();
    expect(next.subarray(0, 2).toString('hex')).toBe('f5c3');
    expect(next.includes(hex('d4c2d9c9d5d8'))).toBe(true); // "MBRINQ"
    raw.socket.destroy();
  });

  it('reads the negotiation sent one byte a packet (a command split across packets)', async () => {
    const raw = new Raw(Number(hostPort().split(':')[1]));
    raw.socket.setNoDelay(true);
    await raw.take(3);
    const bytes = Buffer.concat([
      hex('fffb18 fffa1800'), Buffer.from('IBM-3278-2', 'ascii'), hex('fff0 fffb19 fffd19 fffb00 fffd00'),
    ]);
    for (const b of bytes) await new Promise<void>((resolve) => raw.socket.write(Buffer.from([b]), () => resolve()));
    // SB TERMINAL-TYPE SEND, the host's batch after IS (the client's own WILL/DO come later and are answered by
    // nothing: RFC 1143, they agree with what was asked), then the sign-on screen.
    expect((await raw.take(18)).toString('hex')).toBe('fffa1801fff0' + 'fffd19fffb19fffd00fffb00');
    const screen = await raw.record();
    expect(screen.subarray(0, 2).toString('hex')).toBe('f5c3');
    raw.socket.destroy();
  });

  it('answers a malformed or runaway inbound record on the message line, with the alarm, and stays up', async () => {
    const raw = new Raw(Number(hostPort().split(':')[1]));
    await raw.take(3);
    raw.socket.write(Buffer.concat([hex('fffb18 fffa1800'), Buffer.from('IBM-3278-2', 'ascii'), hex('fff0 fffb19 fffd19 fffb00 fffd00')]));
    await raw.take(18);
    await raw.record();
    // Enter, cursor, then a Start Field order (1D): a terminal never sends one in a read-modified reply.
    raw.socket.write(hex('7d c66a 1d40 ffef'));
    const bad = await raw.record();
    expect(bad.subarray(0, 2).toString('hex')).toBe('f5c7'); // WCC C7: restore, reset MDT, sound alarm
    expect(bad.includes(toEbcdic("UNEXPECTED BYTE X'1D' AT OFFSET 3"))).toBe(true);
    raw.socket.write(Buffer.concat([hex('7d c66a 11c66a'), Buffer.alloc(9000, 0xc1), hex('ffef')]));
    const long = await raw.record();
    expect(long.includes(toEbcdic('INBOUND RECORD TOO LONG'))).toBe(true);
    raw.socket.destroy();
  });

  it('asks again for another terminal type (RFC 1091) and ends the session when the list runs out', async () => {
    const raw = new Raw(Number(hostPort().split(':')[1]));
    await raw.take(3);
    raw.socket.write(hex('fffb18'));
    expect((await raw.take(6)).toString('hex')).toBe('fffa1801fff0');
    const vt100 = Buffer.concat([hex('fffa1800'), Buffer.from('VT100', 'ascii'), hex('fff0')]);
    raw.socket.write(vt100);
    expect((await raw.take(6)).toString('hex')).toBe('fffa1801fff0');
    raw.socket.write(vt100);
    await raw.closedNow();
    expect(raw.rest().toString('ascii')).toContain('TERMINAL TYPE VT100 IS NOT SUPPORTED');
  });

  it('close ends open telnet sessions', async () => {
    const green = await startGreenScreen({ store: new Store({ operatorPassword: PASSWORD }) });
    const raw = new Raw(green.port);
    await raw.take(3);
    expect(green.url).toBe(`tn3270://127.0.0.1:${green.port}`);
    await green.close();
    await raw.closedNow();
  });

  it('refuses a store and a password side by side, naming the mistake', async () => {
    await expect(startGreenScreen({ store: new Store(), operatorPassword: 'x' })).rejects.toMatchObject({
      code: 'BAD_GREEN_SCREEN_OPTIONS',
    });
  });
});

describe('the host codec', () => {
  it('encodes 12-bit addresses with the six-bit table and decodes 12- and 14-bit ones', () => {
    expect(encodeAddress(0)).toEqual([0x40, 0x40]);
    expect(encodeAddress(80)).toEqual([0xc1, 0x50]); // row 2 col 1
    expect(encodeAddress(1919)).toEqual([0x5d, 0x7f]); // row 24 col 80
    expect(decodeAddress(0x5d, 0x7f)).toBe(1919);
    expect(decodeAddress(0x07, 0x7f)).toBe(1919); // 14-bit form
  });

  it('doubles 0xFF inside a record and ends it with IAC EOR', () => {
    expect(frameRecord(Uint8Array.from([0xf5, 0xff, 0x40])).toString('hex')).toBe('f5ffff40ffef');
  });

  it('speaks cp037 both ways', () => {
    expect(toEbcdic('A1a $').toString('hex')).toBe('c1f181405b');
    expect(fromEbcdic(hex('c8c5d3d3d6 4b 00 4a'))).toBe('HELLO.¢');
  });

  it('reads a read-modified record, and a short read (Clear) as the AID alone', () => {
    const r = parseInbound(hex('f1 40c5 114040 c1c2 1140c1 f1'));
    expect(r.aid).toBe(0xf1);
    expect(r.cursor).toBe(5);
    expect([...r.fields]).toEqual([[0, 'AB'], [1, '1']]);
    expect(parseInbound(hex('6d'))).toEqual({ aid: 0x6d, cursor: undefined, fields: new Map() });
    expect(() => parseInbound(hex('7d 4040 1d'))).toThrow(/UNEXPECTED BYTE/);
  });
});
