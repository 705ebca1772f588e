// Finding a Chromium to drive. Playwright cannot download browsers on every machine (closed networks, distro
// builds), so the order is: HANDRAIL_CHROMIUM, Playwright's own download, system Chromium/Chrome, and last the
// headless Chromium shipped inside the optional npm package @sparticuz/chromium, so that `npm ci && npm run demo`
// needs nothing from the system's package manager. HANDRAIL_SKIP_SYSTEM_BROWSER=1 skips the two tiers that live
// outside the project (Playwright's download and system browsers): it is how a test proves the last tier.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type LaunchOptions } from 'playwright-core';
import { HandrailError } from '../../shared/errors.ts';

/** Flags that keep a headless Chromium quiet on a closed network and runnable as root. */
export const QUIET_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
] as const;

export const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export const PACKAGED_NAME = '@sparticuz/chromium';

export type BrowserSource = 'HANDRAIL_CHROMIUM' | 'playwright' | 'system' | 'packaged';

export interface ChromiumChoice {
  executablePath: string;
  source: BrowserSource;
  /** The packaged build is chrome-headless-shell: no window, no extensions. `--headed` still runs headless. */
  headlessOnly: boolean;
  launchOptions: LaunchOptions;
}

export class NoBrowserError extends HandrailError<'NO_BROWSER'> {
  override readonly name = 'NoBrowserError';
  constructor(message: string) {
    super('NO_BROWSER', message);
  }
}

/** The one command that gives a machine a browser when none was found. */
export const NO_BROWSER_FIX = 'npm install (it fetches the optional @sparticuz/chromium), or on Debian/Ubuntu `apt-get install -y chromium`';

export const NO_BROWSER_HELP = [
  'No Chromium found. Handrail looked, in order, at:',
  '  1. the HANDRAIL_CHROMIUM environment variable (path to a chromium/chrome binary)',
  "  2. Playwright's own download (npx playwright install chromium; needs internet)",
  `  3. system browsers: ${SYSTEM_CANDIDATES.join(', ')}`,
  `  4. the headless Chromium inside the optional npm package ${PACKAGED_NAME} (Linux x64 only)`,
  '  (HANDRAIL_SKIP_SYSTEM_BROWSER=1 skips 2 and 3)',
  `Fix: ${NO_BROWSER_FIX}, or point HANDRAIL_CHROMIUM at a Chrome binary.`,
].join('\n');

function playwrightDownload(): string | undefined {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Where the packaged Chromium is, if its package is installed for this platform: entry module and version. */
export function packagedPackage(): { entry: string; version: string } | undefined {
  if (process.platform !== 'linux' || process.arch !== 'x64') return undefined; // its bin/ holds one x64 Linux build
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve(PACKAGED_NAME);
  } catch {
    return undefined; // optional dependency not installed (npm skips it where its engines or platform do not fit)
  }
  // The entry sits in build/ or build/cjs/ depending on the version: walk up to the package's own package.json.
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === PACKAGED_NAME) return { entry, version: typeof pkg.version === 'string' ? pkg.version : 'unknown' };
    } catch {
      // no package.json at this level
    }
  }
  return { entry, version: 'unknown' };
}

/** The directory one packaged version is unpacked into (complete whenever it exists: it is renamed into place). */
export function packagedDir(version: string): string {
  return join(tmpdir(), `handrail-chromium-${version}`);
}

/**
 * The packaged Chromium's binary, unpacked at first use. The package's own `executablePath()` brotli-inflates into
 * `os.tmpdir()` and trusts any `/tmp/chromium` it finds, so a second process could start a half-written binary.
 * We run it in a child whose TMPDIR is a fresh staging directory, then rename that directory into place: a reader
 * sees either nothing or the whole browser, and a run killed mid-unpack leaves only a staging directory behind.
 * (A child also keeps `findChromium` synchronous for every caller, the Playwright config included.)
 */
function packagedChromium(): string | undefined {
  const pkg = packagedPackage();
  if (!pkg) return undefined;
  const dir = packagedDir(pkg.version);
  const exe = join(dir, 'chromium');
  if (existsSync(exe)) return exe;
  const stage = mkdtempSync(`${dir}.unpacking-`);
  // The entry is ESM or CommonJS depending on the version: take whichever export has executablePath().
  const script = [
    `const m = await import(${JSON.stringify(pathToFileURL(pkg.entry).href)});`,
    "const C = [m.default, m.default?.default, m].find((c) => c && typeof c.executablePath === 'function');",
    "if (!C) throw new Error('no executablePath() in the package');",
    'process.stdout.write(await C.executablePath());',
  ].join('\n');
  try {
    execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, TMPDIR: stage, TMP: stage, TEMP: stage },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 180_000,
    });
    if (!existsSync(join(stage, 'chromium'))) throw new Error('the package did not produce a chromium binary');
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim().split('\n').find((l) => l.trim()) ?? '';
    const why = stderr || (e instanceof Error ? e.message.split('\n')[0] : String(e));
    throw new NoBrowserError(`${PACKAGED_NAME} ${pkg.version} is installed but could not be unpacked into ${dir}: ${why}\n${NO_BROWSER_HELP}`);
  }
  try {
    renameSync(stage, dir);
  } catch (e) {
    rmSync(stage, { recursive: true, force: true });
    if (!existsSync(exe)) throw e; // another process won the race only if its browser is there
  }
  return exe;
}

/** Where to look, injectable so a test can take a tier away. */
export interface BrowserLocator {
  playwright: () => string | undefined;
  system: () => string | undefined;
  packaged: () => string | undefined;
}

export const DEFAULT_LOCATOR: BrowserLocator = {
  playwright: playwrightDownload,
  system: () => SYSTEM_CANDIDATES.find((p) => existsSync(p)),
  packaged: packagedChromium,
};

/** Pick a browser or throw NoBrowserError whose message says exactly what to do. */
export function findChromium(env: NodeJS.ProcessEnv = process.env, locate: BrowserLocator = DEFAULT_LOCATOR): ChromiumChoice {
  // Our flags for every tier. The packaged build's own `args` are tuned for AWS Lambda (--single-process,
  // --disable-web-security, --disable-site-isolation-trials…) and would change what a page may read across
  // origins; it launches headless with these flags alone.
  const make = (executablePath: string, source: BrowserSource): ChromiumChoice => ({
    executablePath,
    source,
    headlessOnly: source === 'packaged',
    launchOptions: { executablePath, args: [...QUIET_FLAGS] },
  });
  const fromEnv = env['HANDRAIL_CHROMIUM'];
  if (fromEnv) {
    if (!existsSync(fromEnv)) {
      throw new NoBrowserError(`HANDRAIL_CHROMIUM is set to ${fromEnv}, but no file is there.\n${NO_BROWSER_HELP}`);
    }
    return make(fromEnv, 'HANDRAIL_CHROMIUM');
  }
  if (env['HANDRAIL_SKIP_SYSTEM_BROWSER'] !== '1') {
    const downloaded = locate.playwright();
    if (downloaded) return make(downloaded, 'playwright');
    const system = locate.system();
    if (system) return make(system, 'system');
  }
  const packaged = locate.packaged();
  if (packaged) return make(packaged, 'packaged');
  throw new NoBrowserError(NO_BROWSER_HELP);
}
