// A model authors a rows output: the prompt lists the tables a screen shows, the guard refuses a header the table does not have (by name) and a header on a list (text instead), the book line compiles to a read_rows step and a rows output that replays, and a bad rows line is a compile hole naming its line.
import os from 'node:os';
import path from 'node:path';
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runEvening } from '../../shared/author/evening.ts';
import type { ToolCall } from '../../shared/author/ports.ts';
import { renderRowSources, rowSources } from '../../shared/author/rows.ts';
import { compile } from '../../shared/compile/compile.ts';
import { runCapability } from '../../runner/run.ts';
import type { SurfaceRow, TraceLine } from '../../shared/schema/index.ts';
import { ListModel } from '../fixtures/author/list-model.ts';
import { MemoryBook } from '../fixtures/author/fake-surface.ts';
import { MemorySurface, type MemoryApp, type MemoryElement } from '../fixtures/memory-surface.ts';

const HEADERS = ['Share ID', 'Type', 'Status'];
const SHARES: SurfaceRow[] = [
  { cells: { 'Share ID': '400118-S0001', Type: 'SAVINGS', Status: 'ACTIVE' }, text: '400118-S0001 SAVINGS ACTIVE' },
  { cells: { 'Share ID': '400118-S0005', Type: 'DRAFT', Status: 'HELD' }, text: '400118-S0005 DRAFT HELD' },
];

/** One column header per header of one table, each reading the whole table (as the browser reads around a header). */
const header = (name: string, rows: SurfaceRow[]): MemoryElement => ({ role: 'columnheader', name, control: false, verbs: ['read_rows'], ancestors: ['table', 'row'], rows, headers: HEADERS });

function app(rows: SurfaceRow[] = SHARES): MemoryApp {
  return {
    screens: {
      home: { title: 'Home', elements: [{ role: 'link', name: 'Member', on: { invoke: 'member' } }, { role: 'link', name: 'Tasks', on: { invoke: 'tasks' } }] },
      member: { title: 'Member', text: 'MEMBER DETAIL', furniture: ["strong 'MEMBER DETAIL'"], elements: [...HEADERS.map((h) => header(h, rows)), { role: 'link', name: 'Back', on: { invoke: 'home' } }] },
      tasks: {
        title: 'Tasks',
        elements: [{ role: 'list', name: 'Tasks', control: false, rows: [{ cells: {}, text: 'Buy milk' }, { cells: {}, text: 'Walk dog' }], headers: [] }],
      },
    },
  };
}

const owner = { ask: () => Promise.resolve({ answer: 'navigate' as const, name: 'Olive Owner' }) };
const SETTLE = { quietMs: 0, pollMs: 1 };

async function evening(turns: Omit<ToolCall, 'id'>[][], entry = 'memory://home'): Promise<{ model: ListModel; lines: TraceLine[]; ok: boolean }> {
  const surface = new MemorySurface(app());
  const book = new MemoryBook();
  const model = new ListModel(turns);
  const r = await runEvening({ surface, model, owner, book, goal: 'List the shares of a member', entry, inputs: [], settle: SETTLE });
  return { model, lines: book.lines as TraceLine[], ok: r.ok };
}

const TO_MEMBER = [{ name: 'assert_screen', input: { label: 'home' } }, { name: 'act', input: { row: 1, verb: 'invoke' } }];
const READ_SHARES = { name: 'read_rows', input: { table: 'T1', output: 'shares', columns: { share_id: 'Share ID', status: 'Status' } } };

let tmp = '';
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-compile-rows-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('authoring a rows output', () => {
  it('shows the table once, by its headers and row count, only on the screen that has it', async () => {
    const { model } = await evening([TO_MEMBER, [{ name: 'assert_screen', input: { label: 'member' } }]]);
    expect(model.seen[0]?.screen).not.toContain('Rows (read_rows)');
    expect(model.seen[1]?.screen).toContain("Rows (read_rows):\nT1: table, columns 'Share ID', 'Type', 'Status'; 2 rows");
    expect(model.seen[1]?.screen.match(/^T\d:/gm)).toEqual(['T1:']);
  });

  it('offers a named grid once, by its name, though its headers show too; a header two tables share is offered by neither', async () => {
    const grid = (name: string): MemoryElement => ({ role: 'grid', name, control: false, rows: SHARES, headers: HEADERS });
    const surface = new MemorySurface({
      screens: {
        two: {
          title: 'Two tables',
          elements: [
            grid('Shares'),
            ...HEADERS.map((h) => ({ ...header(h, SHARES), ancestors: ['grid', 'row'] })),
            // A second table whose only header repeats one of the first's: found twice, so offered through no header.
            { ...header('Type', SHARES), headers: ['Type'], ancestors: ['table', 'row'] },
          ],
        },
      },
    });
    await surface.open('memory://two');
    const sources = await rowSources(surface, await surface.observe());
    expect(renderRowSources(sources)).toBe("T1: grid 'Shares', columns 'Share ID', 'Type', 'Status'; 2 rows");
  });

  it('asks about unnamed lists only where the screen`s paths pass through a list: a page without lists costs no round trip for them', async () => {
    const list: MemoryElement = { role: 'list', name: '', control: false, rows: [{ cells: {}, text: 'Buy milk' }], headers: [] };
    const surface = new MemorySurface({
      screens: {
        plain: { title: 'No list paths', elements: [list] },
        tabs: { title: 'Tabs, not a list', furniture: ["main>tablist>tab 'Open'", "main>tablist>tab 'Closed'"], elements: [list] },
        listed: { title: 'A list with a control', furniture: ["main>list>listitem>button 'Delete'"], elements: [list] },
      },
    });
    const asked: string[] = [];
    const resolve = surface.resolve.bind(surface);
    surface.resolve = (t) => {
      asked.push(`${t.role} '${t.name ?? ''}'`);
      return resolve(t);
    };
    await surface.open('memory://plain');
    expect(await rowSources(surface, await surface.observe())).toEqual([]);
    expect(asked).toEqual([]);
    // A tablist is no list: its paths ask nothing either.
    await surface.open('memory://tabs');
    await rowSources(surface, await surface.observe());
    expect(asked).toEqual([]);
    await surface.open('memory://listed');
    const sources = await rowSources(surface, await surface.observe());
    expect(renderRowSources(sources)).toBe('T1: list (unnamed, the only one here), no headers (use text); 1 rows');
    // Found once in its frame, and read by that ref: not asked for a second time.
    expect(asked).toEqual(["list ''"]);
  });

  it('refuses a header the table does not have, naming it and the headers it has; a table not on the screen; a taken name', async () => {
    const { model, lines } = await evening([
      TO_MEMBER,
      [
        { name: 'assert_screen', input: { label: 'member' } },
        { name: 'read_rows', input: { table: 'T1', output: 'shares', columns: { owner: 'Owner' } } },
        { name: 'read_rows', input: { table: 'T9', output: 'shares', columns: { id: 'Share ID' } } },
        { name: 'read_rows', input: { table: 'T1', output: 'Shares!', columns: { id: 'Share ID' } } },
        { name: 'read_rows', input: { table: 'T1', output: 'shares' } },
        READ_SHARES,
        READ_SHARES,
      ],
    ]);
    const texts = model.seen[2]?.results.map((r) => r.text) ?? [];
    expect(texts[1]).toBe('refused (UNKNOWN_HEADER): T1 has no column "Owner"; its headers are "Share ID", "Type", "Status"');
    expect(texts[2]).toMatch(/^refused \(NO_SUCH_TABLE\): there is no table "T9" on this screen; the screen has T1$/);
    expect(texts[3]).toMatch(/^refused \(OUTPUT_INVALID\)/);
    expect(texts[4]).toMatch(/^refused \(COLUMNS_REQUIRED\)/);
    expect(texts[5]).toBe('done: output shares reads 2 rows of T1 (columns share_id, status)');
    expect(texts[6]).toMatch(/^refused \(OUTPUT_TAKEN\)/);
    expect(lines.filter((l) => l.kind === 'refusal').map((l) => (l as { code: string }).code)).toEqual([
      'UNKNOWN_HEADER', 'NO_SUCH_TABLE', 'OUTPUT_INVALID', 'COLUMNS_REQUIRED', 'OUTPUT_TAKEN',
    ]);
    const act = lines.find((l) => l.kind === 'act' && l.verb === 'read_rows');
    expect(act).toMatchObject({
      verb: 'read_rows',
      control: { role: 'columnheader', name: 'Share ID' },
      effect: { kind: 'read', by: 'rule' },
      rows: { output: 'shares', columns: { share_id: { header: 'Share ID' }, status: { header: 'Status' } }, headers: HEADERS, count: 2 },
    });
  });

  it('a list has no headers: a column by header is refused, the whole-text column is taken', async () => {
    const { model, lines } = await evening([
      [{ name: 'assert_screen', input: { label: 'home' } }, { name: 'act', input: { row: 2, verb: 'invoke' } }],
      [
        { name: 'assert_screen', input: { label: 'tasks' } },
        { name: 'read_rows', input: { table: 'T1', output: 'tasks', columns: { title: 'Title' } } },
        { name: 'read_rows', input: { table: 'T1', output: 'tasks', text: 'title' } },
      ],
      [{ name: 'finish', input: { label: 'tasks' } }],
    ]);
    expect(model.seen[1]?.screen).toContain("T1: list 'Tasks', no headers (use text); 2 rows");
    const texts = model.seen[2]?.results.map((r) => r.text) ?? [];
    expect(texts[1]).toMatch(/^refused \(NO_HEADERS\): T1 has no column headers; use text/);
    const compiled = compile(lines, { id: 'tasks' });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
    expect(compiled.card.outputs['tasks']).toEqual({ kind: 'rows', from_step: 'read_tasks', columns: { title: { text: true } } });
    expect(compiled.card.targets['tasks_list']).toMatchObject({ role: 'list', name: { eq: 'Tasks' }, supports: ['read_rows'] });
  });
});

describe('compiling a rows output', () => {
  const FULL = [TO_MEMBER, [{ name: 'assert_screen', input: { label: 'member' } }, READ_SHARES, { name: 'finish', input: { label: 'member' } }]];

  it('writes a read_rows step and a rows output that replays the rows by the card\'s column names', async () => {
    const { lines, ok } = await evening(FULL);
    expect(ok).toBe(true);
    const compiled = compile(lines, { id: 'member_shares' });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.holes));
    const card = compiled.card;
    expect(card.outputs).toEqual({ shares: { kind: 'rows', from_step: 'read_shares', columns: { share_id: { header: 'Share ID' }, status: { header: 'Status' } } } });
    expect(card.steps.at(-1)).toMatchObject({ id: 'read_shares', screen: 'member', op: { verb: 'read_rows' }, target: 'shares_table', effect: { kind: 'read' }, settle: { kind: 'none' } });
    expect(card.targets['shares_table']).toMatchObject({ role: 'columnheader', name: { eq: 'Share ID' }, supports: ['read_rows'], ladder: [{ rung: 'role_name' }] });
    expect(compiled.notes.join('\n')).toContain('Outputs: shares (rows');
    // The compiled card replays with no model: the same rows, by the card's names; an empty table is [].
    for (const [rows, want] of [
      [SHARES, [{ share_id: '400118-S0001', status: 'ACTIVE' }, { share_id: '400118-S0005', status: 'HELD' }]],
      [[], []],
    ] as const) {
      const surface = new MemorySurface(app([...rows]));
      const r = await runCapability({ card, inputs: {}, env: {}, surface: () => Promise.resolve(surface), evidenceDir: path.join(tmp, `run-${rows.length}`), allowUnapproved: true });
      expect(r).toMatchObject({ word: 'SUCCESS' });
      expect(r.outputs['shares']).toEqual(want);
    }
  });

  it.each<[string, (l: Record<string, unknown>) => void, string, RegExp]>([
    ['a read_rows line with no output', (l) => delete l['rows'], 'ROWS_WITHOUT_OUTPUT', /declares no output/],
    ['a header the table did not have', (l) => ((l['rows'] as { columns: object }).columns = { owner: { header: 'Owner' } }), 'UNKNOWN_HEADER', /"Owner", which the table did not have \(headers: "Share ID", "Type", "Status"\)/],
    ['no columns', (l) => ((l['rows'] as { columns: object }).columns = {}), 'NO_COLUMNS', /names no column/],
    ['a target that is not a table', (l) => ((l['control'] as { role: string }).role = 'button'), 'ROWS_TARGET', /from a button/],
    ['rows on a press', (l) => (l['verb'] = 'invoke'), 'ROWS_WITHOUT_OUTPUT', /only a read_rows line/],
  ])('refuses %s with a hole on its line', async (_what, mutate, code, message) => {
    const { lines } = await evening(FULL);
    const at = lines.findIndex((l) => l.kind === 'act' && l.verb === 'read_rows');
    const bad = structuredClone(lines).map((l) => ({ ...l, prev: undefined }) as TraceLine);
    mutate(bad[at] as unknown as Record<string, unknown>);
    const compiled = compile(bad);
    expect(compiled.ok).toBe(false);
    if (compiled.ok) return;
    expect(compiled.holes.find((h) => h.code === code), JSON.stringify(compiled.holes)).toMatchObject({ line: at + 1, message: expect.stringMatching(message) as string });
  });

  it('refuses two rows outputs of one name on the second line', async () => {
    const { lines } = await evening(FULL);
    const at = lines.findIndex((l) => l.kind === 'act' && l.verb === 'read_rows');
    const twice = [...lines.slice(0, at + 1), { ...lines[at], seq: at + 2 } as TraceLine, ...lines.slice(at + 1).map((l) => ({ ...l, seq: l.seq + 1 }))].map((l) => ({ ...l, prev: undefined }) as TraceLine);
    const compiled = compile(twice);
    expect(compiled.ok ? [] : compiled.holes.filter((h) => h.code === 'OUTPUT_TAKEN')).toEqual([{ line: at + 2, code: 'OUTPUT_TAKEN', message: 'the output "shares" is declared twice; each output has one name' }]);
  });
});
