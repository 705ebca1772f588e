// A run killed right after pressing a commit leaves the journal saying "in doubt", so the next run refuses to press it again.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FailpointError, parseFailpoint } from '../../runner/engine/failpoint.ts';
import { readJournal } from '../../runner/engine/journal.ts';

const status = async (file: string): Promise<string> => (await readJournal(file))?.state.status() ?? 'absent';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const child = path.join(root, 'tests/fixtures/failpoint-child.ts');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(journal: string, failpoint: string | undefined): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.HANDRAIL_FAILPOINT;
  if (failpoint !== undefined) env.HANDRAIL_FAILPOINT = failpoint;
  return new Promise((resolve, reject) => {
    // `node --import tsx` rather than the tsx CLI: the CLI runs the script in a grandchild and turns its
    // SIGKILL into exit code 137, while here the test sees the signal itself.
    const p = spawn(process.execPath, ['--import', 'tsx', child, journal, 'hold', 'post_hold'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

const exists = (f: string): Promise<boolean> => fs.stat(f).then(() => true, () => false);

let tmp: string;
let journal: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-failpoint-'));
  journal = path.join(tmp, 'journal.jsonl');
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('parseFailpoint', () => {
  it('is inert when unset or empty', () => {
    expect(parseFailpoint(undefined)).toBeUndefined();
    expect(parseFailpoint('')).toBeUndefined();
  });
  it('parses step:where, the step may contain colons', () => {
    expect(parseFailpoint('post_hold:after_act')).toEqual({ step: 'post_hold', where: 'after_act' });
    expect(parseFailpoint('a:b:before_act')).toEqual({ step: 'a:b', where: 'before_act' });
    expect(parseFailpoint('post_hold:after_settle')).toEqual({ step: 'post_hold', where: 'after_settle' });
  });
  it('throws a typed error on a malformed value', () => {
    for (const bad of ['post_hold', 'post_hold:during', ':after_act', 'post hold:after_act', 'post_hold:']) {
      expect(() => parseFailpoint(bad), bad).toThrow(FailpointError);
      expect(() => parseFailpoint(bad)).toThrow(expect.objectContaining({ code: 'FAILPOINT_MALFORMED' }) as Error);
    }
  });
});

describe('failpoint in a child process', () => {
  it('after_act: the child dies by SIGKILL after pressing, no finally runs, and the commit is in doubt', async () => {
    const r = await runChild(journal, 'post_hold:after_act');
    expect(r.signal).toBe('SIGKILL');
    expect(r.stdout).toBe('');
    expect(await fs.readFile(`${journal}.presses`, 'utf8')).toBe('pressed\n');
    expect(await exists(`${journal}.finally`)).toBe(false);
    const j = await readJournal(journal);
    expect(j?.state.state('post_hold')).toBe('dispatched');
    expect(j?.state.inDoubt()).toEqual(['post_hold']);
  });

  it('before_act: dies before pressing; the journal still says in doubt (it cannot know)', async () => {
    const r = await runChild(journal, 'post_hold:before_act');
    expect(r.signal).toBe('SIGKILL');
    expect(await exists(`${journal}.presses`)).toBe(false);
    expect(await status(journal)).toBe('in_doubt');
  });

  it('is inert when unset or naming another step: the child completes and observes', async () => {
    for (const fp of [undefined, 'other_step:after_act']) {
      await fs.rm(journal, { force: true });
      await fs.rm(`${journal}.head`, { force: true });
      const r = await runChild(journal, fp);
      expect(r.signal).toBeNull();
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('done\n');
      expect(await status(journal)).toBe('committed');
    }
  });

  it('a malformed value stops the child at startup with a typed error, before the journal is touched', async () => {
    const r = await runChild(journal, 'post_hold:sometime');
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('FAILPOINT_MALFORMED');
    expect(await exists(journal)).toBe(false);
  });
});
