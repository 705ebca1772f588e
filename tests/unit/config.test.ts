// handrail.config.json sets once what a deployment would repeat on every command (base URL, state directory, bound
// inputs, judge, origins, model, allowed environment names); flags win over it, it never holds a secret, and a bad
// file is one typed line naming the file and the path inside it.
import { promises as fs } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handrail } from '../e2e/support/cli.ts';
import { boundInputs, CONFIG_SCHEMA_FILE, configSchemaText, envWithConfig, loadConfig } from '../../runner/config.ts';

let tmp: string;
const ROOT = process.cwd();
const SECRET = 'config-test-password-81';

beforeAll(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-config-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

const cli = (args: string[], cwd: string, env: NodeJS.ProcessEnv) => handrail(args, env, cwd);

/** A port nothing listens on (bound, then released). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function dir(name: string, config?: unknown): Promise<string> {
  const d = path.join(tmp, name);
  await fs.mkdir(d, { recursive: true });
  if (config !== undefined) await fs.writeFile(path.join(d, 'handrail.config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return d;
}

describe('handrail.config.json', () => {
  it(`${CONFIG_SCHEMA_FILE} is current (regenerate: npm run golden:update)`, async () => {
    expect(await fs.readFile(CONFIG_SCHEMA_FILE, 'utf8')).toBe(configSchemaText());
  });

  it('is found in the working directory, or named with --config; none is an empty config; state_dir is relative to the file', async () => {
    expect(await loadConfig(undefined, await dir('none'))).toEqual({ file: null, config: {} });
    const d = await dir('found', { base_url: 'http://127.0.0.1:8080', state_dir: 'state', bind: { operator_id: 'OP1001' } });
    const found = await loadConfig(undefined, d);
    expect(found.file).toBe(path.join(d, 'handrail.config.json'));
    expect(found.config).toEqual({ base_url: 'http://127.0.0.1:8080', state_dir: path.join(d, 'state'), bind: { operator_id: 'OP1001' } });
    expect(envWithConfig({}, found.config)).toEqual({ HANDRAIL_HOME: path.join(d, 'state') });
    expect(envWithConfig({ HANDRAIL_HOME: '/elsewhere' }, found.config)).toEqual({ HANDRAIL_HOME: '/elsewhere' });
    expect(envWithConfig({}, { model: 'claude-x' })).toEqual({ HANDRAIL_MODEL: 'claude-x' });
    expect(envWithConfig({ HANDRAIL_MODEL: 'claude-y' }, { model: 'claude-x' })).toEqual({ HANDRAIL_MODEL: 'claude-y' });
    const named = await loadConfig('../found/handrail.config.json', await dir('other'));
    expect(named.config.bind).toEqual({ operator_id: 'OP1001' });
  });

  it('a bad file is CONFIG_INVALID naming the file and the path: missing, not JSON, a duplicate key, an unknown key, a bad value', async () => {
    const d = await dir('bad');
    const cases: [string, RegExp][] = [
      ['{"base_url": "ftp://x"}', /at base_url: expected an http\(s\) URL/],
      ['{"bind": {"Operator": "x"}}', /at bind\.Operator: expected a lower_snake_case input name/],
      ['{"allow_env": ["HANDRAIL_SECRET_PASSWORD"]}', /at allow_env\.0: .*HANDRAIL_/],
      ['{"judge": "a", "judge": "b"}', /judge/],
      ['{"base_urll": "http://x"}', /base_urll/],
      ['{"origins": ["http://x/path"]}', /at origins\.0: expected scheme:\/\/host\[:port\]/],
      ['{not json', /config .*handrail\.config\.json/],
    ];
    for (const [text, why] of cases) {
      await fs.writeFile(path.join(d, 'handrail.config.json'), text);
      const e = await loadConfig(undefined, d).then(() => null, (x: unknown) => x as { code: string; message: string });
      expect(e?.code, text).toBe('CONFIG_INVALID');
      expect(e?.message, text).toContain(path.join(d, 'handrail.config.json'));
      expect(e?.message, text).toMatch(why);
    }
    const missing = await loadConfig('nope.json', d).then(() => null, (x: unknown) => x as { code: string; message: string });
    expect(missing).toMatchObject({ code: 'CONFIG_INVALID', message: `cannot read config ${path.join(d, 'nope.json')}: ENOENT` });
  });

  it('bound inputs: only names the card declares, --input wins name by name, a secret is refused', () => {
    const card = { operator_id: {}, member_number: {}, password: { secret: true } };
    expect(boundInputs({ bind: { operator_id: 'OP1001', branch: 'X' } }, card, { member_number: '400118' })).toEqual({ operator_id: 'OP1001', member_number: '400118' });
    expect(boundInputs({ bind: { operator_id: 'OP1001' } }, card, { operator_id: 'OP2002' })).toEqual({ operator_id: 'OP2002' });
    expect(() => boundInputs({ bind: { password: 'x' } }, card, {})).toThrow(/config binds password, a secret input: secrets come only from HANDRAIL_SECRET_PASSWORD/);
  });

  it('replay reads base_url and bind from it, and flags win: the receipt names the config\'s URL, or the flag\'s', async () => {
    const [a, b] = [await deadPort(), await deadPort()];
    const d = await dir('replay', { base_url: `http://127.0.0.1:${a}`, state_dir: 'state', bind: { operator_id: 'OP1001', member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' } });
    const card = path.join(ROOT, 'capabilities/plumbline-place-hold.json');
    const env = { ...process.env, HANDRAIL_SECRET_PASSWORD: SECRET, HANDRAIL_HOME: '' };
    // Every input came from the file (no MISSING_INPUT): the run gets as far as the network, which the config named.
    const fromFile = await cli(['replay', card], d, env);
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ word: 'RECOVERABLE', code: 'SURFACE_UNREACHABLE' });
    expect(JSON.parse(fromFile.stdout).message).toContain(`127.0.0.1:${a}`);
    expect(fromFile.stderr).toContain(`journal ${path.join(d, 'state', 'journals')}`);
    const flagWins = await cli(['replay', card, '--base-url', `http://127.0.0.1:${b}`, '--input', 'share_id=400118-S9999'], d, env);
    expect(JSON.parse(flagWins.stdout).message).toContain(`127.0.0.1:${b}`);
    expect(fromFile.stdout + fromFile.stderr + flagWins.stdout + flagWins.stderr).not.toContain(SECRET);
  });

  it('verify takes its judge from it; a bad config stops any command with one line', async () => {
    const port = await deadPort();
    const d = await dir('verify', { judge: `http://127.0.0.1:${port}/_judge/holds/{{share_id}}`, bind: { operator_id: 'OP1001' } });
    await fs.writeFile(path.join(d, 'plates.csv'), 'member_number,share_id,reason\n400118,400118-S0005,LEGAL\n');
    const card = path.join(d, 'card.json');
    await fs.copyFile(path.join(ROOT, 'capabilities/plumbline-place-hold.json'), card);
    const ran = await cli(['verify', card, '--inputs', 'plates.csv', '--evidence', 'ev'], d, { ...process.env, HANDRAIL_SECRET_PASSWORD: SECRET });
    expect(ran.code).toBe(1);
    expect(JSON.parse(ran.stdout).plates[0]).toMatchObject({ status: 'refused', plate: { operator_id: 'OP1001', share_id: '400118-S0005' } });
    expect(JSON.parse(ran.stdout).plates[0].why).toContain('the judge gave no before-state');
    const bad = await dir('bad-cli', '{"bind": {"operator_id": 7}}');
    const refused = await cli(['replay', card], bad, process.env);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^handrail: CONFIG_INVALID: config .*bad-cli\/handrail\.config\.json at bind\.operator_id: /);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const named = await cli(['--config', 'missing.json', 'report'], bad, process.env);
    expect(named.stderr).toMatch(/^handrail: CONFIG_INVALID: cannot read config .*missing\.json: ENOENT/);
  });
});
