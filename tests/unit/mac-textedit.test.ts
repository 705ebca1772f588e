// The TextEdit card on the mac surface, through the fake helper: `handrail replay` saves the note (the fake's disk
// shows the file with its text) and never saves it twice; a person's key press mid-run hands the app back to them
// (HUMAN_CONTROL); the expanded Save panel, with two fields titled "Save As:", stops AMBIGUOUS instead of typing
// into the wrong one.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MacSurface } from '../../mac-agent/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { handrail } from '../e2e/support/cli.ts';

const CARD = fileURLToPath(new URL('../../capabilities/textedit-save-note.json', import.meta.url));

let dir: string;
let card: Capability;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handrail-mac-textedit-'));
  card = Capability.parse(JSON.parse(await readFile(CARD, 'utf8')));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

type Saved = { path: string; text: string }[];
const files = async (state: string): Promise<Saved> => {
  try {
    return (JSON.parse(await readFile(state, 'utf8')) as { files: Saved }).files;
  } catch {
    return [];
  }
};

function run(name: string, fakeEnv: Record<string, string>, inputs = { text: 'Call the plumber', filename: 'plumber' }) {
  const state = join(dir, `${name}-disk.json`);
  const surfaces: MacSurface[] = [];
  const result = runCapability({
    card,
    requireApproved: true,
    inputs,
    env: {},
    surface: async () => {
      const s = await MacSurface.launch({ helper: 'fake', env: { HANDRAIL_MAC_FAKE_STATE: state, ...fakeEnv } });
      surfaces.push(s);
      return s;
    },
    evidenceDir: join(dir, `${name}-evidence`),
  });
  return { result, state, surfaces };
}

describe('handrail replay of the approved TextEdit card', () => {
  it('saves the note: SUCCESS, the file is on the fake disk with the text, and the same intent again is answered from the journal', async () => {
    const state = join(dir, 'cli-disk.json');
    const env = { ...process.env, HANDRAIL_MAC_HELPER: 'fake', HANDRAIL_MAC_FAKE_STATE: state, HANDRAIL_HOME: join(dir, 'home') };
    const args = ['replay', CARD, '--input', 'text=Buy milk and bread', '--input', 'filename=groceries', '--evidence', join(dir, 'cli-ev')];
    const first = await handrail(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ word: 'SUCCESS', code: 'OK', screen: 'saved', llm_calls: 0, from_journal: false });
    expect(await files(state)).toEqual([{ path: '/Users/fake/Documents/groceries.rtf', text: 'Buy milk and bread' }]);
    // The evidence holds the screen text (no screenshot: the surface declares none).
    const log = await readFile(join(dir, 'cli-ev', 'evidence.jsonl'), 'utf8');
    expect(log).toContain('groceries.rtf');
    const again = await handrail([...args.slice(0, -1), join(dir, 'cli-ev2')], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ word: 'SUCCESS', from_journal: true });
    expect(await files(state)).toHaveLength(1);
  }, 120_000);

  it('without HANDRAIL_MAC_HELPER on Linux, the run says the real helper needs a Mac', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, HANDRAIL_HOME: join(dir, 'home-real') };
    delete env['HANDRAIL_MAC_HELPER'];
    const r = await handrail(['replay', CARD, '--input', 'text=x', '--input', 'filename=y', '--evidence', join(dir, 'real-ev')], env);
    expect(r.code).not.toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE' });
    expect(r.stdout).toContain('runs only on macOS');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('handrail observe on the mac surface', () => {
  it('shows the menu a model reads for a bundle id, and refuses an entry that is not one, by name', async () => {
    const env = { ...process.env, HANDRAIL_MAC_HELPER: 'fake' };
    const menu = await handrail(['observe', 'com.apple.TextEdit', '--surface', 'macos'], env);
    expect(menu.code, menu.stderr).toBe(0);
    expect(menu.stdout).toContain("invoke menuitem 'Save…'");
    expect(menu.stdout).toContain("set_value textbox 'First Text View'");
    const bad = await handrail(['observe', 'TextEdit please', '--surface', 'macos'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('bundle id');
  }, 60_000);

  it('a mac helper that cannot start is the surface unavailable, not a missing browser', async () => {
    const env = { ...process.env, HANDRAIL_MAC_HELPER: '/nonexistent/handrail-mac-helper' };
    const r = await handrail(['observe', 'com.apple.TextEdit', '--surface', 'macos'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SURFACE_UNAVAILABLE');
    expect(r.stderr).not.toContain('NO_BROWSER');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});

describe('the baton', () => {
  it('a person pressing a key while the note is typed stops the run HUMAN_CONTROL before the next action; nothing is saved', async () => {
    const { result, state, surfaces } = run('human', { HANDRAIL_MAC_FAKE_HUMAN_AFTER: '1' });
    const r = await result;
    expect(r).toMatchObject({ word: 'FAILED', code: 'HUMAN_CONTROL', retryable: false, steps_done: 0 });
    expect(r.message).toContain('keyboard');
    // File > Save… was never pressed: no sheet was created, and no file written.
    expect(surfaces[0]?.notifications).toContain('AXValueChanged');
    expect(surfaces[0]?.notifications).not.toContain('AXSheetCreated');
    expect(await files(state)).toEqual([]);
  });

  it('a person pressing a key just after Save was pressed leaves the commit in doubt, not retried', async () => {
    const { result, state } = run('human-late', { HANDRAIL_MAC_FAKE_HUMAN_AFTER: '4' });
    expect(await result).toMatchObject({ word: 'UNSAFE_TO_RETRY', code: 'COMMIT_IN_DOUBT', at_step: 'save' });
    expect((await result).message).toContain('keyboard');
    expect(await files(state)).toHaveLength(1);
  });
});

describe('ambiguity', () => {
  it('the expanded Save panel has two fields titled "Save As:": the run stops AMBIGUOUS and never presses Save', async () => {
    const { result, state } = run('expanded', { HANDRAIL_MAC_FAKE_VARIANT: 'expanded' });
    const r = await result;
    expect(r).toMatchObject({ word: 'FAILED', code: 'AMBIGUOUS', at_step: 'enter_save_as' });
    expect(await files(state)).toEqual([]);
  });
});

describe('the surface\'s verbs on the recorded TextEdit', () => {
  it('select picks a popup\'s option through its menu, read gives a field\'s value, a ref from before the sheet closed is STALE, and no screenshot is claimed', async () => {
    const state = join(dir, 'verbs-disk.json');
    const s = await MacSurface.launch({ helper: 'fake', env: { HANDRAIL_MAC_FAKE_STATE: state } });
    try {
      await s.open('com.apple.TextEdit');
      const control = async (role: string, name: string) => {
        const c = (await s.observe()).parts.flatMap((p) => p.controls).find((x) => x.role === role && (x.name === name || x.hint === name));
        if (!c) throw new Error(`no ${role} ${name}`);
        return c;
      };
      await s.act((await control('textbox', 'First Text View')).ref, { verb: 'set_value', value: 'A page of HTML' });
      // A verb the helper has no AX action for is refused by name, not answered as done.
      for (const verb of ['press', 'hover', 'double_click', 'choose', 'context_menu', 'read_rows'] as const) {
        await expect(s.act((await control('textbox', 'First Text View')).ref, { verb, ...(verb === 'press' ? { value: 'Enter' } : {}) })).rejects.toMatchObject({ code: 'ACTION_FAILED', message: expect.stringContaining('does not') });
      }
      await s.act((await control('menuitem', 'Save…')).ref, { verb: 'invoke' });
      const name = await control('textbox', 'Save As:');
      expect(name).toMatchObject({ value: 'Untitled', verbs: ['set_value', 'read'], scope: [{ role: 'region', name: 'Untitled' }, { role: 'dialog', name: '' }] });
      await s.act(name.ref, { verb: 'set_value', value: 'page' });
      const format = await control('combobox', 'File Format:');
      await s.act(format.ref, { verb: 'select', value: 'Web Page (.html)' });
      expect((await control('combobox', 'File Format:')).value).toBe('Web Page (.html)');
      // An option the popup does not offer: refused, and its menu closed again, the choice unchanged.
      await expect(s.act((await control('combobox', 'File Format:')).ref, { verb: 'select', value: 'Plain Text' })).rejects.toMatchObject({ code: 'ACTION_FAILED' });
      const after = (await s.observe()).parts.flatMap((p) => p.controls);
      expect(after.filter((c) => c.name === 'Rich Text Document')).toEqual([]);
      expect(after.find((c) => c.name === 'File Format:')?.value).toBe('Web Page (.html)');
      expect(await s.act((await control('textbox', 'Save As:')).ref, { verb: 'read' })).toEqual({ read: 'page' });
      const save = await control('button', 'Save');
      await s.act(save.ref, { verb: 'invoke' });
      expect(s.notifications).toEqual(expect.arrayContaining(['AXSheetCreated', 'AXValueChanged', 'AXUIElementDestroyed', 'AXTitleChanged']));
      await s.observe();
      // The Save button went with the sheet: its ref is refused, never pressed on something else.
      await expect(s.act(save.ref, { verb: 'invoke' })).rejects.toMatchObject({ code: 'STALE' });
      expect(await files(state)).toEqual([{ path: '/Users/fake/Documents/page.html', text: 'A page of HTML' }]);
      await expect(s.evidence('screenshot')).rejects.toMatchObject({ code: 'ACTION_FAILED' });
      expect(await s.evidence('text')).toContain('page.html');
    } finally {
      await s.close();
    }
  });
});
