// The package as a stranger gets it: `npm pack`, installed into an empty folder (from the npm cache, no network),
// runs `npx handrail --help`, `demo` and `replay` there, compiled, with neither esbuild nor a TypeScript loader.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { EXIT_CODE } from '../../shared/schema/result.ts';
import { node, type Ran } from './support/cli.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const PASSWORD = 'pw-package-spec';

/** A command as a shell runs it (npm, npx), with exactly `env`. */
function sh(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

interface LockEntry {
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  link?: boolean;
  [field: string]: unknown;
}

/** An empty project that depends on the tarball, with a lockfile: the package, then our lockfile's production entries. */
async function writeStrangerProject(folder: string, tarball: string): Promise<void> {
  const ours = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
  const lock = JSON.parse(await readFile(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const project = { name: 'stranger', version: '1.0.0', private: true, dependencies: { handrail: tarball } };
  const packages: Record<string, unknown> = {
    '': { name: project.name, version: project.version, dependencies: project.dependencies },
    'node_modules/handrail': {
      version: ours['version'],
      resolved: tarball,
      license: ours['license'],
      dependencies: ours['dependencies'],
      optionalDependencies: ours['optionalDependencies'],
      bin: ours['bin'],
      engines: ours['engines'],
    },
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.link) continue;
    // Needed by a dev tool or an optional one here: only the optional side is the stranger's.
    const { devOptional, ...rest } = entry;
    packages[path] = devOptional ? { ...rest, optional: true } : rest;
  }
  await writeFile(join(folder, 'package.json'), `${JSON.stringify(project, null, 2)}\n`);
  await writeFile(join(folder, 'package-lock.json'), `${JSON.stringify({ name: project.name, version: project.version, lockfileVersion: 3, requires: true, packages }, null, 2)}\n`);
}

let scratch: string;
/** The stranger's empty project the tarball is installed into. */
let folder: string;
let env: NodeJS.ProcessEnv;
let bank: Bank;

test.describe.configure({ mode: 'serial' });
test.beforeAll(async () => {
  test.setTimeout(240_000);
  scratch = await mkdtemp(join(tmpdir(), 'handrail-package-'));
  // The tests' own build is what is packed (`--ignore-scripts`: the test configs built dist/ already).
  const packed = await sh('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], ROOT, process.env);
  expect(packed.code, packed.stderr).toBe(0);
  const tarball = join(scratch, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  folder = join(scratch, 'app');
  await mkdir(folder);
  // Offline, from the npm cache `npm ci` filled: a lockfile of the stranger's project, the package's own production
  // entries taken from ours. (`npm install <tarball> --offline` would need each dependency's registry metadata,
  // which `npm ci` never caches: on a machine whose cache held only tarballs it failed ENOTCACHED.) Optional ones (a
  // packaged Chromium, SQLite for the notebook) are left out: this machine's Chromium is found as a user's would be,
  // and a run works without a notebook.
  await writeStrangerProject(folder, `file:../${basename(tarball)}`);
  const installed = await sh('npm', ['ci', '--offline', '--omit=optional', '--no-audit', '--no-fund'], folder, process.env);
  expect(installed.code, installed.stderr).toBe(0);
  env = { ...process.env, HANDRAIL_HOME: join(folder, '.handrail'), PATH: `${join(folder, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}` };
  delete env['NODE_OPTIONS'];
  bank = await startBank({ port: 0, operatorPassword: PASSWORD });
});
test.afterAll(async () => {
  await bank?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

test('the installed package has the compiled CLI and none of the build tools', async () => {
  const modules = await readdir(join(folder, 'node_modules'));
  expect(modules).toContain('handrail');
  for (const tool of ['esbuild', 'tsx', 'typescript', 'wxt', 'vite']) expect(modules, tool).not.toContain(tool);
  expect(existsSync(join(folder, 'node_modules/handrail/dist/runner/cli/main.js'))).toBe(true);
  expect((await readdir(join(folder, 'node_modules/handrail/dist/walker'))).some((f) => f.startsWith('walker-'))).toBe(true);
  const help = await sh('npx', ['handrail', '--help'], folder, env);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('Usage: handrail');
  const version = await node([join(folder, 'node_modules/handrail/bin/handrail.mjs'), '--version'], env, folder);
  expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
});

test('npx handrail demo ends SUCCESS in the empty folder, and the bank holds the hold', async () => {
  const demo = await sh('npx', ['handrail', 'demo'], folder, env);
  expect(demo.code, demo.stderr).toBe(0);
  expect(JSON.parse(demo.stdout)).toMatchObject({ word: 'SUCCESS' });
  expect(demo.stderr).toMatch(/judge/i);
});

test('npx handrail replay runs the packaged card against a bank', async () => {
  const card = join(folder, 'node_modules/handrail/capabilities/plumbline-place-hold.json');
  const ran = await sh(
    'npx',
    ['handrail', 'replay', card, '--base-url', bank.url, '-i', 'operator_id=OP1001', '-i', 'member_number=400118', '-i', 'share_id=400118-S0005', '-i', 'reason=LEGAL'],
    folder,
    { ...env, HANDRAIL_SECRET_PASSWORD: PASSWORD },
  );
  expect(ran.code, ran.stderr).toBe(EXIT_CODE.SUCCESS);
  expect(JSON.parse(ran.stdout)).toMatchObject({ word: 'SUCCESS' });
  expect(bank.store.holdFor('400118-S0005').postPresses).toBe(1);
});
