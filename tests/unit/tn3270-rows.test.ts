// Rows on a green screen, as an operator reads a list: a line whose fields line up under the header words is a row,
// keyed by the first column whose texts tell the rows apart; its SEL field is a textbox named by its heading and scoped
// to that row, so a card types into "the SEL of the row whose SHARE ID is 400118-S0005", never into a line number.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeScreen, type Input, type Label } from '../../demo/plumbline/green/screen.ts';
import { Capability } from '../../shared/schema/capability.ts';
import type { Control, Observation } from '../../shared/schema/observation.ts';
import type { BoundTarget } from '../../shared/surface.ts';
import { observeScreen } from '../../terminal-agent/observe.ts';
import { Screen } from '../../terminal-agent/screen.ts';
import { TerminalSurface } from '../../terminal-agent/surface.ts';
import { minimalCard } from '../fixtures/cards/minimal.ts';
import { settled, startTinyHost, type TinyHost } from '../fixtures/tn3270-host.ts';

interface Share { id: string; type: string; balance: string; status: string }
const SHARES: Share[] = [
  { id: '400118-S0001', type: 'SHARE SAVINGS', balance: '$12,500.00', status: 'ACTIVE' },
  { id: '400118-S0005', type: 'SHARE DRAFT', balance: '$3,842.17', status: 'ACTIVE' },
  { id: '400118-S0007', type: 'SHARE SAVINGS', balance: '$40.00', status: 'HELD LEGAL' },
];

/** A list screen in the ISPF way: a header line, then one line per share with a one-character SEL field first. */
function listScreen(shares: readonly Share[], header = `SEL  ${'SHARE ID'.padEnd(14)} ${'TYPE'.padEnd(14)} ${'BALANCE'.padStart(14)}   STATUS`) {
  const labels: Label[] = [
    { row: 1, col: 2, text: 'MBRDTL' },
    { row: 3, col: 2, text: 'MEMBER' },
    { row: 3, col: 14, text: '400118' },
    { row: 7, col: 2, text: header },
    ...shares.map((s, i) => ({ row: 8 + i, col: 7, text: `${s.id.padEnd(14)} ${s.type.padEnd(14)} ${s.balance.padStart(14)}   ${s.status}` })),
    { row: 24, col: 2, text: 'ENTER=Select  F12=Cancel' },
  ];
  const inputs: Input[] = shares.map((s, i) => ({ name: `sel${i}`, row: 8 + i, col: 2, length: 1 }));
  return { labels, inputs };
}

function observed(screen: { labels: Label[]; inputs: Input[] }): Observation {
  const s = new Screen();
  s.apply(encodeScreen(screen));
  return observeScreen(s, 'h:1').observation;
}

const textboxes = (o: Observation): Control[] => (o.parts[0]?.controls ?? []).filter((c) => c.role === 'textbox');

describe('rows on a terminal screen', () => {
  it('names each SEL field by its heading and scopes it to its row, keyed by the share id column', () => {
    const boxes = textboxes(observed(listScreen(SHARES)));
    expect(boxes.map((c) => ({ name: c.name, scope: c.scope, ancestors: c.ancestors }))).toEqual(
      SHARES.map((s) => ({ name: 'SEL', scope: [{ role: 'row', name: s.id, column: 'SHARE ID' }], ancestors: ['row'] })),
    );
  });

  it('keeps one signature however many shares the member has (a row\'s field is one path, like its text)', () => {
    const one = observed(listScreen(SHARES.slice(0, 1)));
    const three = observed(listScreen(SHARES));
    expect(three.signature).toBe(one.signature);
    expect(three.paths).toContain('field c1 w1 input row');
  });

  it('skips a column whose texts repeat: the key is the first column that tells the rows apart', () => {
    const header = `SEL  ${'TYPE'.padEnd(14)} ${'SHARE ID'.padEnd(14)}`;
    const shares = SHARES.slice(0, 2);
    const screen = listScreen(shares, header);
    screen.labels = screen.labels.map((l) => (l.row >= 8 && l.row < 8 + shares.length ? { ...l, text: `${'SHARE SAVINGS'.padEnd(14)} ${shares[l.row - 8]?.id ?? ''}` } : l));
    expect(textboxes(observed(screen)).map((c) => c.scope)).toEqual(shares.map((s) => [{ role: 'row', name: s.id, column: 'SHARE ID' }]));
  });

  it('a form is not a list: a field after a leader-dotted label keeps that label, even under a line of words', () => {
    const o = observed({
      labels: [
        { row: 4, col: 2, text: 'NAME' },
        { row: 4, col: 14, text: 'MARGARET OKAFOR' },
        { row: 5, col: 2, text: 'NOTE  . . . .' },
      ],
      inputs: [{ name: 'note', row: 5, col: 17, length: 20 }],
    });
    expect(textboxes(o).map((c) => ({ name: c.name, scope: c.scope }))).toEqual([{ name: 'NOTE', scope: [] }]);
  });
});

let host: TinyHost | null = null;
let surface: TerminalSurface | null = null;
afterEach(async () => {
  await surface?.close();
  await host?.close();
  host = surface = null;
});

const sel = (scope: BoundTarget['scope']): BoundTarget => ({
  id: 'sel', role: 'textbox', name: 'SEL', supports: ['set_value', 'read'], scope, ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] },
});

describe('the terminal surface finds a row by its key', () => {
  it('types into the SEL field of the named share\'s row, and finds no row for a share the list does not show', async () => {
    host = await startTinyHost([...encodeScreen(listScreen(SHARES))], () => undefined);
    surface = new TerminalSurface();
    await surface.open(host.url);
    await settled(surface);
    const found = await surface.resolve(sel([{ role: 'row', name: '400118-S0005', column: 'SHARE ID' }]));
    expect(found).toMatchObject({ ok: true, rung: 'role_name' });
    await surface.act(found.ok ? found.ref : '', { verb: 'set_value', value: 'S' });
    const lines = (await surface.observe()).parts[0]?.text.split('\n') ?? [];
    expect(lines[8]).toMatch(/^ S {4}400118-S0005/);
    expect(lines[7]).toMatch(/^ {6}400118-S0001/);
    // The same row without naming its column: the row's key is the share id.
    expect(await surface.resolve(sel([{ role: 'row', name: '400118-S0005' }]))).toMatchObject({ ok: true, ref: found.ok ? found.ref : '' });
    expect(await surface.resolve(sel([{ role: 'row', name: '400118-S0099', column: 'SHARE ID' }]))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
    // A row is never found by a column other than its key's, nor by a SEL field's line on the screen.
    expect(await surface.resolve(sel([{ role: 'row', name: 'SHARE DRAFT', column: 'TYPE' }]))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
    expect(await surface.resolve(sel([{ role: 'row', name: '400118-S0005', column: 'TYPE' }]))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
    expect(await surface.resolve(sel([{ role: 'row', name: '2' }]))).toMatchObject({ ok: false, code: 'TARGET_NOT_FOUND' });
  });
});

describe('a row scope that names its column', () => {
  const withScope = (surface: 'browser' | 'tn3270', scope: unknown) => {
    const card = minimalCard();
    const target = card.targets['member_link'];
    return Capability.safeParse({
      ...card,
      surface,
      entry: '{{env.BASE_URL}}',
      targets: { ...card.targets, member_link: { ...target, scope, ladder: [{ rung: 'role_name', cost: 100 }] } },
    });
  };
  const messages = (r: ReturnType<typeof withScope>): string => (r.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');

  it('loads on the terminal, whose rows say which column keys them', () => {
    const r = withScope('tn3270', [{ role: 'row', name: '{{input.member_number}}', column: 'MEMBER' }]);
    expect(messages(r)).not.toMatch(/column/);
  });

  it('is refused on a surface whose rows name no column, and on a link that is not a row', () => {
    expect(messages(withScope('browser', [{ role: 'row', name: '{{input.member_number}}', column: 'MEMBER' }]))).toMatch(
      /targets\.member_link\.scope\.0\.column: the browser surface keys a row by its first distinct column and names none/,
    );
    expect(messages(withScope('browser', [{ role: 'frame', name: 'work', column: 'MEMBER' }]))).toMatch(/only a row link names a column/);
  });
});
