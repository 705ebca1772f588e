// One browser for many runs: launched here, or reached over Playwright's wire protocol on a browser server
// (`npx playwright launch-server`, `chromium.launchServer`, or a compatible grid) with `--browser-ws URL`. Each run
// then opens its own context in it (docs/design/scale.md, "Many runs"). A server that cannot be reached and one
// that speaks another Playwright version are told apart, by code, before any run starts.
import { chromium, type Browser } from 'playwright-core';
import { HandrailError } from '../../shared/errors.ts';
import { findChromium } from './chromium.ts';

export type RemoteBrowserCode = 'BROWSER_UNREACHABLE' | 'BROWSER_VERSION_MISMATCH' | 'BAD_URL';

export class RemoteBrowserError extends HandrailError<RemoteBrowserCode> {
  override readonly name = 'RemoteBrowserError';
  constructor(code: RemoteBrowserCode, message: string) {
    super(code, message, '--browser-ws');
  }
}

export interface BrowserSource {
  /** A Playwright browser server's ws:// or wss:// endpoint; unset: launch a local Chromium (runner/browser/chromium.ts). */
  wsEndpoint?: string;
  headed?: boolean;
  /** How long connecting may take (default 30 s). */
  timeoutMs?: number;
  /** Extra handshake headers (a grid's authorisation); never printed. */
  headers?: Record<string, string>;
}

/** The endpoint without its query and credentials, for messages: a grid's token often rides in the URL. */
export function shownEndpoint(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/**
 * Playwright's server answers a client of another major.minor version with HTTP 428 and a box that says
 * "Playwright version mismatch" and both versions (playwright-core, PlaywrightServer's upgrade check).
 */
export function connectFailure(url: string, e: unknown): RemoteBrowserError {
  const text = e instanceof Error ? e.message : String(e);
  const where = shownEndpoint(url);
  if (/version mismatch/i.test(text)) {
    const server = /server version:\s*v?([\d.]+)/.exec(text)?.[1];
    const client = /client version:\s*v?([\d.]+)/.exec(text)?.[1];
    return new RemoteBrowserError(
      'BROWSER_VERSION_MISMATCH',
      `the browser server at ${where} speaks Playwright ${server ?? 'of another version'}, this handrail ${client ?? 'another'}: run a server of the same major.minor version (npx playwright@<version> launch-server)`,
    );
  }
  const cause = /ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|ECONNRESET|socket hang up|Timeout \d+ms exceeded|404|closed/i.exec(text)?.[0];
  return new RemoteBrowserError(
    'BROWSER_UNREACHABLE',
    `cannot reach a Playwright browser server at ${where}${cause ? ` (${cause})` : ''}: start one (npx playwright launch-server --browser chromium) or check the URL`,
  );
}

/**
 * The browser the runs share. Launched locally, it does not close itself on SIGINT/SIGTERM: the caller drains its
 * runs first (as `serve` does), then closes it.
 */
export async function startBrowser(src: BrowserSource = {}): Promise<Browser> {
  if (src.wsEndpoint === undefined) {
    return chromium.launch({ ...findChromium().launchOptions, headless: !src.headed, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
  }
  const url = src.wsEndpoint;
  if (!/^wss?:\/\//.test(url)) throw new RemoteBrowserError('BAD_URL', `--browser-ws expects a ws:// or wss:// URL, got ${JSON.stringify(shownEndpoint(url))}`);
  try {
    return await chromium.connect(url, { timeout: src.timeoutMs ?? 30_000, ...(src.headers ? { headers: src.headers } : {}) });
  } catch (e) {
    throw connectFailure(url, e);
  }
}
