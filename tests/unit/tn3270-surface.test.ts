// The terminal surface drives a 3270 host through the six verbs: fields named by their labels, keys named on the screen, STALE until the host answers, a signature that ignores data.
import { afterEach, describe, expect, it } from 'vitest';
import { observeScreen } from '../../terminal-agent/observe.ts';
import { Screen } from '../../terminal-agent/screen.ts';
import { TerminalSurface } from '../../terminal-agent/surface.ts';
import { settled, startTinyHost, type TinyHost } from '../fixtures/tn3270-host.ts';

// Hand-written records (GA23-0059; the codes are listed in tests/unit/tn3270-datastream.test.ts).
const SIGN_ON = [
  0xf5, 0xc3,
  0x11, 0x40, 0x40, 0x1d, 0x60, 0xe2, 0xc9, 0xc7, 0xd5, 0x40, 0xd6, 0xd5, // @0 "SIGN ON"
  0x11, 0xc1, 0x50, 0x1d, 0x60, 0xe4, 0xe2, 0xc5, 0xd9, 0x7a, // @80 "USER:"
  0x1d, 0x40, 0x13, // @86 input, cursor @87
  0x11, 0xc1, 0x60, 0x1d, 0xf0, // @96 autoskip
  0x11, 0xc2, 0x60, 0x1d, 0x60, 0xd7, 0xc1, 0xe2, 0xe2, 0x7a, // @160 "PASS:"
  0x1d, 0x4c, // @166 input, non-display
  0x11, 0xc2, 0xf0, 0x1d, 0xf0, // @176 autoskip
  // @1840 (row 24): "ENTER=Sign On  F3=Exit"
  0x11, 0x5c, 0xf0, 0x1d, 0x60, 0xc5, 0xd5, 0xe3, 0xc5, 0xd9, 0x7e, 0xe2, 0x89, 0x87, 0x95, 0x40, 0xd6, 0x95, 0x40, 0x40, 0xc6, 0xf3, 0x7e, 0xc5, 0xa7, 0x89, 0xa3,
];
// "WELCOME <name>" @0, "CONF HX-1" @80, "PF10=Post Hold" @1840
const welcome = (name: number[]) => [
  0xf5, 0xc3,
  0x11, 0x40, 0x40, 0x1d, 0x60, 0xe6, 0xc5, 0xd3, 0xc3, 0xd6, 0xd4, 0xc5, 0x40, ...name,
  0x11, 0xc1, 0x50, 0x1d, 0x60, 0xc3, 0xd6, 0xd5, 0xc6, 0x40, 0xc8, 0xe7, 0x60, 0xf1,
  0x11, 0x5c, 0xf0, 0x1d, 0x60, 0xd7, 0xc6, 0xf1, 0xf0, 0x7e, 0xd7, 0x96, 0xa2, 0xa3, 0x40, 0xc8, 0x96, 0x93, 0x84,
];
const OP1 = [0xd6, 0xd7, 0xf1];
const OP22 = [0xd6, 0xd7, 0xf2, 0xf2];

// Enter after typing OP1 and pw12: AID 7D, cursor @171 (C2 6B), SBA @87 (C1 D7) "OP1", SBA @167 (C2 E7) "pw12".
const ENTER_SIGN_ON = [0x7d, 0xc2, 0x6b, 0x11, 0xc1, 0xd7, 0xd6, 0xd7, 0xf1, 0x11, 0xc2, 0xe7, 0x97, 0xa6, 0xf1, 0xf2];

let host: TinyHost | null = null;
let surface: TerminalSurface | null = null;
afterEach(async () => {
  await surface?.close();
  await host?.close();
  host = surface = null;
});

async function signOnHost() {
  host = await startTinyHost(SIGN_ON, (rec, c) => {
    if (rec[0] === 0x7d) setTimeout(() => c.send(welcome(OP1)), 120);
    else if (rec[0] === 0x7a) {
      c.send([0xf1, 0x00]); // a write that leaves the keyboard locked
      setTimeout(() => c.send(welcome(OP22)), 120);
    } else if (rec[0] === 0xf3) c.drop();
  });
  surface = new TerminalSurface();
  await surface.open(host.url);
  return { host, surface };
}

describe('the terminal surface', () => {
  it('observes labelled fields, a secret field and the keys the screen names', async () => {
    const { surface: s } = await signOnHost();
    const obs = await s.observe();
    const controls = obs.parts[0]?.controls.map((c) => ({ role: c.role, name: c.name, secret: c.secret ?? false, verbs: c.verbs }));
    expect(controls).toEqual([
      { role: 'textbox', name: 'USER', secret: false, verbs: ['set_value', 'read'] },
      { role: 'textbox', name: 'PASS', secret: true, verbs: ['set_value', 'read'] },
      { role: 'button', name: 'ENTER=Sign On', secret: false, verbs: ['invoke'] },
      { role: 'button', name: 'F3=Exit', secret: false, verbs: ['invoke'] },
    ]);
    expect(obs.parts[0]?.text.split('\n').slice(0, 3)).toEqual([' SIGN ON', ' USER:', ' PASS:']);
    expect(obs.locus).toEqual({ host: `127.0.0.1:${host?.port}`, screen: 'SIGN ON' });
    expect(obs.observer).toBe('tn3270/2');
    expect(s.session?.refusedTn3270e).toBe(true);
  });

  it('types into fields, sends exactly the Read Modified bytes on Enter, and is STALE until the next screen', async () => {
    const { surface: s, host: h } = await signOnHost();
    const obs = await s.observe();
    const [user, pass, enter] = obs.parts[0]?.controls ?? [];
    await s.act(user?.ref ?? '', { verb: 'set_value', value: 'OP1' });
    await s.act(pass?.ref ?? '', { verb: 'set_value', value: 'pw12', secret: true });
    expect((await s.observe()).parts[0]?.text).not.toContain('pw12');
    await s.act(enter?.ref ?? '', { verb: 'invoke' });
    await expect(s.observe()).rejects.toMatchObject({ code: 'STALE' });
    await expect(s.evaluate({ kind: 'text_present', text: 'WELCOME' })).rejects.toMatchObject({ code: 'STALE' });
    const next = await settled(s);
    expect(h.inbound).toEqual([ENTER_SIGN_ON]);
    expect(next.parts[0]?.text).toContain('WELCOME OP1');
    expect(await s.evaluate({ kind: 'text_present', text: 'WELCOME OP1' })).toEqual({ kind: 'text_present', present: true });
  });

  it('keeps one signature for one screen whatever data it shows, and waits out a write that leaves the keyboard locked', async () => {
    const { surface: s } = await signOnHost();
    const signOn = await s.observe();
    await s.act(signOn.parts[0]?.controls[2]?.ref ?? '', { verb: 'invoke' });
    const first = await settled(s);
    const post = first.parts[0]?.controls.find((c) => c.name === 'PF10=Post Hold');
    expect(post).toBeDefined();
    await s.act(post?.ref ?? '', { verb: 'invoke' });
    const stales = { n: 0 };
    const second = await settled(s, stales);
    expect(stales.n).toBeGreaterThan(0);
    expect(second.parts[0]?.text).toContain('WELCOME OP22');
    expect(second.signature).toBe(first.signature);
    expect(second.signature).not.toBe(signOn.signature);
  });

  it('resolves targets by name, label and text, and reads a line holding words', async () => {
    const { surface: s } = await signOnHost();
    await s.observe();
    const base = { supports: [], scope: [], fingerprint: { over: [] } };
    const byLabel = await s.resolve({ ...base, id: 'user', role: 'textbox', hint: 'USER', ladder: [{ rung: 'label', cost: 200 }] });
    expect(byLabel).toMatchObject({ ok: true, rung: 'label' });
    const byName = await s.resolve({ ...base, id: 'go', role: 'button', name: 'ENTER=Sign On', ladder: [{ rung: 'role_name', cost: 100 }] });
    expect(byName).toMatchObject({ ok: true, rung: 'role_name' });
    const none = await s.resolve({ ...base, id: 'x', role: 'button', name: 'F9=Nothing', ladder: [{ rung: 'role_name', cost: 100 }] });
    expect(none).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
    await s.act(byName.ok ? byName.ref : '', { verb: 'invoke' });
    await settled(s);
    const line = await s.resolve({ ...base, id: 'conf', role: 'text', ladder: [{ rung: 'text', cost: 300, value: 'HX-' }] });
    expect(line.ok).toBe(true);
    expect(await s.act(line.ok ? line.ref : '', { verb: 'read' })).toEqual({ read: 'CONF HX-1' });
  });

  it('refuses what a terminal refuses, as typed errors, and says when the host has gone', async () => {
    const { surface: s } = await signOnHost();
    const [user, , , exit] = (await s.observe()).parts[0]?.controls ?? [];
    await expect(s.act(user?.ref ?? '', { verb: 'set_value', value: 'TOO-LONG-ID' })).rejects.toMatchObject({
      code: 'ACTION_FAILED',
      message: expect.stringContaining('11 characters do not fit a 9-character field') as string,
    });
    await expect(s.act(user?.ref ?? '', { verb: 'set_value', value: '€' })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('code page 037 has no "€"') as string });
    await expect(s.act('|f999', { verb: 'set_value', value: 'x' })).rejects.toMatchObject({ code: 'STALE' });
    await expect(s.evidence('screenshot')).rejects.toMatchObject({ code: 'ACTION_FAILED' });
    expect(await s.evidence('text')).toContain('SIGN ON');
    await s.act(exit?.ref ?? '', { verb: 'invoke' });
    for (let i = 0; i < 100 && !s.session?.ended; i++) await new Promise((r) => setTimeout(r, 10));
    await expect(s.observe()).rejects.toMatchObject({ code: 'SURFACE_UNREACHABLE', message: expect.stringContaining('closed the connection') as string });
  });

  it('a host whose first record is not a 3270 data stream is refused at open, naming the byte', async () => {
    host = await startTinyHost([0x99, 0x00], () => undefined);
    surface = new TerminalSurface({ connectTimeoutMs: 2_000 });
    await expect(surface.open(host.url)).rejects.toMatchObject({ code: 'SURFACE_UNREACHABLE', message: expect.stringContaining('unknown 3270 command 0x99') as string });
  });

  it('says why it cannot open: no host there, or not a terminal entry', async () => {
    const s = new TerminalSurface({ connectTimeoutMs: 2_000 });
    await expect(s.open('tn3270://127.0.0.1:1')).rejects.toMatchObject({ code: 'SURFACE_UNREACHABLE', message: expect.stringContaining('ECONNREFUSED') as string });
    await expect(s.open('http://127.0.0.1:8080/')).rejects.toMatchObject({ code: 'SURFACE_UNREACHABLE', message: expect.stringContaining('tn3270://host:port') as string });
  });
});

describe('naming on a screen, without a host', () => {
  it('names a field by the words above it when nothing is to its left, and reads PA, Clear and PF24 legends as keys', () => {
    const screen = new Screen();
    screen.apply(Uint8Array.from([
      0xf5, 0xc3,
      0x11, 0x40, 0xc1, 0x1d, 0x60, 0xd5, 0xc1, 0xd4, 0xc5, // @1 "NAME"
      0x11, 0xc1, 0x50, 0x1d, 0x40, // @80 input (row 2, nothing to its left)
      0x11, 0xc1, 0xe4, 0x1d, 0x60, // @100 protected: the input is 81..99
      // @160 "PA1=Cancel  CLEAR=Restart  PF24=More"
      0x11, 0xc2, 0x60, 0x1d, 0x60, 0xd7, 0xc1, 0xf1, 0x7e, 0xc3, 0x81, 0x95, 0x83, 0x85, 0x93, 0x40, 0x40,
      0xc3, 0xd3, 0xc5, 0xc1, 0xd9, 0x7e, 0xd9, 0x85, 0xa2, 0xa3, 0x81, 0x99, 0xa3, 0x40, 0x40, 0xd7, 0xc6, 0xf2, 0xf4, 0x7e, 0xd4, 0x96, 0x99, 0x85,
    ]));
    const { observation, targets } = observeScreen(screen, 'h:1');
    expect(observation.parts[0]?.controls.map((c) => `${c.role} ${c.name}`)).toEqual([
      'textbox NAME', 'button PA1=Cancel', 'button CLEAR=Restart', 'button PF24=More', 'button Enter',
    ]);
    expect([...targets.values()].filter((t) => t.kind === 'key').map((t) => (t.kind === 'key' ? t.aid : ''))).toEqual(['PA1', 'CLEAR', 'PF24', 'ENTER']);
    expect(observation.paths).toContain('field r2c1 w19 input');
  });
});
