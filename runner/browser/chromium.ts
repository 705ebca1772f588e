// Finding a Chromium to drive. Playwright cannot download browsers on every machine (closed networks,
// distro builds), so the order is: HANDRAIL_CHROMIUM, Playwright's own download, then system Chromium/Chrome.
import { existsSync } from 'node:fs';
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

const SYSTEM_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

export interface ChromiumChoice {
  executablePath: string;
  source: 'HANDRAIL_CHROMIUM' | 'playwright' | 'system';
  launchOptions: LaunchOptions;
}

export class NoBrowserError extends HandrailError<'NO_BROWSER'> {
  override readonly name = 'NoBrowserError';
  constructor(message: string) {
    super('NO_BROWSER', message);
  }
}

export const NO_BROWSER_HELP = [
  'No Chromium found. Handrail looked, in order, at:',
  '  1. the HANDRAIL_CHROMIUM environment variable (path to a chromium/chrome binary)',
  "  2. Playwright's own download (npx playwright install chromium; needs internet)",
  `  3. system browsers: ${SYSTEM_CANDIDATES.join(', ')}`,
  'Fix: on Debian/Ubuntu run `apt-get install -y chromium`, or point HANDRAIL_CHROMIUM at a Chrome binary.',
].join('\n');

function playwrightDownload(): string | undefined {
  try {
    const path = chromium.executablePath();
    return path && existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Pick a browser or throw NoBrowserError whose message says exactly what to do. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): ChromiumChoice {
  const make = (executablePath: string, source: ChromiumChoice['source']): ChromiumChoice => ({
    executablePath,
    source,
    launchOptions: { executablePath, args: [...QUIET_FLAGS] },
  });
  const fromEnv = env['HANDRAIL_CHROMIUM'];
  if (fromEnv) {
    if (!existsSync(fromEnv)) {
      throw new NoBrowserError(`HANDRAIL_CHROMIUM is set to ${fromEnv}, but no file is there.\n${NO_BROWSER_HELP}`);
    }
    return make(fromEnv, 'HANDRAIL_CHROMIUM');
  }
  const downloaded = playwrightDownload();
  if (downloaded) return make(downloaded, 'playwright');
  const system = SYSTEM_CANDIDATES.find((p) => existsSync(p));
  if (system) return make(system, 'system');
  throw new NoBrowserError(NO_BROWSER_HELP);
}
