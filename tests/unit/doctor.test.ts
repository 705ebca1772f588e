// `handrail doctor` tells an operator whether this machine is ready — browser, state, journals, model key, MCP
// config — names what is missing with the one command that fixes it, and never shows a key or a secret.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose, formatDiagnosis, nodeCheck } from '../../runner/cli/doctor.ts';
import { Journal } from '../../runner/engine/journal.ts';
import { handrailOut } from '../e2e/support/cli.ts';

let home: string;
const KEY_VALUE = `sk-ant-api03-${randomBytes(24).toString('hex')}`;
const SECRET_VALUE = `pw-${randomBytes(12).toString('hex')}`;
const IN_DOUBT = 'hold.0123456789abcdef0123456789abcdef';
const DAMAGED = 'hold.ffffffffffffffffffffffffffffffff';

function cli(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; out: string }> {
  return handrailOut(args, { ...process.env, ...env });
}

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-doctor-'));
  const journals = path.join(home, 'journals');
  const j = await Journal.open(path.join(journals, `${IN_DOUBT}.jsonl`), { key: IN_DOUBT, card: 'hold', content_hash: 'sha256:abc' });
  await j.dispatched('r1', 'post', 'commit');
  await j.close();
  await fs.writeFile(path.join(journals, `${DAMAGED}.jsonl`), '\0\0\0 not a journal\n');
});
afterAll(async () => {
  await fs.rm(home, { recursive: true, force: true });
});

describe('handrail doctor', () => {
  it('on a ready machine: exit 0, the browser and its kind, journals in doubt and damaged named, the MCP snippet', async () => {
    const r = await cli(['doctor'], { HANDRAIL_HOME: home, ANTHROPIC_API_KEY: KEY_VALUE, HANDRAIL_SECRET_PASSWORD: SECRET_VALUE });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ok {6}browser {4}Chromium \d+\.\d+/);
    expect(r.out).toMatch(/· (full|headless only)\n/);
    expect(r.out).toContain(`${home} ($HANDRAIL_HOME)`);
    expect(r.out).toContain('2 in');
    expect(r.out).toContain('in doubt 1 · damaged 1');
    expect(r.out).toContain(`in doubt: ${IN_DOUBT} (steps post)`);
    expect(r.out).toContain(`damaged: ${DAMAGED}`);
    expect(r.out).toContain('ANTHROPIC_API_KEY present');
    expect(r.out).toContain('HANDRAIL_SECRET_PASSWORD present');
    expect(r.out).toContain('"serve"');
    expect(r.out.trimEnd().endsWith('ready')).toBe(true);
  });

  it('never shows the model key or a secret, not even a piece of one, in text or JSON', async () => {
    for (const args of [['doctor'], ['doctor', '--json']]) {
      const r = await cli(args, { HANDRAIL_HOME: home, ANTHROPIC_API_KEY: KEY_VALUE, HANDRAIL_SECRET_PASSWORD: SECRET_VALUE });
      for (const value of [KEY_VALUE, SECRET_VALUE]) {
        for (let i = 0; i + 8 <= value.length; i += 4) expect(r.out).not.toContain(value.slice(i, i + 8));
      }
    }
  });

  it('an absent key is a note, not a failure; it says which command needs it', async () => {
    const r = await cli(['doctor', '--json'], { HANDRAIL_HOME: home, ANTHROPIC_API_KEY: '' });
    const d = JSON.parse(r.out) as { ready: boolean; checks: { name: string; ok: boolean; summary: string }[] };
    expect(d.ready).toBe(true);
    expect(d.checks.find((c) => c.name === 'model_key')).toMatchObject({ ok: false });
    expect(d.checks.find((c) => c.name === 'model_key')?.summary).toContain('handrail author');
  });

  it('a browser that is not there: exit 1 naming it and the fix, no stack trace', async () => {
    const r = await cli(['doctor'], { HANDRAIL_HOME: home, HANDRAIL_CHROMIUM: '/nonexistent/chrome' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('MISSING browser');
    expect(r.out).toContain('/nonexistent/chrome');
    expect(r.out).toMatch(/not ready: browser \(fix: unset HANDRAIL_CHROMIUM\)/);
    expect(r.out).not.toMatch(/\n\s+at /);
  });

  it('no browser anywhere: the one command that fixes it', async () => {
    const none = { playwright: () => undefined, system: () => undefined, packaged: () => undefined };
    const d = await diagnose({ env: { HANDRAIL_HOME: home }, locate: none });
    expect(d.ready).toBe(false);
    const browser = d.checks.find((c) => c.name === 'browser');
    expect(browser?.fix).toMatch(/^(npm install|apt-get install -y chromium)$/);
    expect(formatDiagnosis(d)).toContain(`not ready: browser (fix: ${browser?.fix ?? ''})`);
  });

  it('a state directory that cannot be written: not ready, with the fix', async () => {
    const file = path.join(home, 'a-file');
    await fs.writeFile(file, '');
    const d = await diagnose({ env: { HANDRAIL_HOME: path.join(file, 'state') } });
    const state = d.checks.find((c) => c.name === 'state');
    expect(state).toMatchObject({ ok: false, blocking: true });
    expect(state?.fix).toContain('HANDRAIL_HOME');
    expect(d.ready).toBe(false);
  });
});

describe('the Node check', () => {
  it('asks for 20.19 or later, as package.json does', () => {
    expect(nodeCheck('20.19.0').ok).toBe(true);
    expect(nodeCheck('22.1.0').ok).toBe(true);
    expect(nodeCheck('20.18.3')).toMatchObject({ ok: false, blocking: true });
    expect(nodeCheck('18.20.0').fix).toContain('20.19');
  });
});
