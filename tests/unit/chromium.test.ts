// Where Playwright cannot download a browser, Handrail still finds one (last of all the Chromium inside an npm
// package), and says exactly what to do when none is there.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findChromium,
  NO_BROWSER_HELP,
  NoBrowserError,
  packagedPackage,
  type BrowserLocator,
} from '../../runner/browser/chromium.ts';

const none: BrowserLocator = { playwright: () => undefined, system: () => undefined, packaged: () => undefined };
const every: BrowserLocator = { playwright: () => '/pw/chrome', system: () => '/usr/bin/chromium', packaged: () => '/tmp/packed/chromium' };

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

describe('finding a Chromium', () => {
  it('HANDRAIL_CHROMIUM wins when it points at a file', () => {
    const choice = findChromium({ HANDRAIL_CHROMIUM: process.execPath }, every);
    expect(choice).toMatchObject({ source: 'HANDRAIL_CHROMIUM', executablePath: process.execPath, headlessOnly: false });
    expect(choice.launchOptions.args).toEqual(expect.arrayContaining(['--no-sandbox', '--disable-background-networking']));
  });

  it('a HANDRAIL_CHROMIUM that points nowhere is an error that names the path and the fix', () => {
    const caught = thrown(() => findChromium({ HANDRAIL_CHROMIUM: '/nonexistent/chrome' }, every));
    expect(caught).toBeInstanceOf(NoBrowserError);
    expect((caught as NoBrowserError).code).toBe('NO_BROWSER');
    expect(caught.message).toContain('/nonexistent/chrome');
    expect(caught.message).toContain('apt-get install -y chromium');
  });

  it("the order is Playwright's download, then the system, then the packaged one", () => {
    expect(findChromium({}, every).source).toBe('playwright');
    expect(findChromium({}, { ...every, playwright: () => undefined }).source).toBe('system');
    const packaged = findChromium({}, { ...none, packaged: () => '/tmp/packed/chromium' });
    expect(packaged).toMatchObject({ source: 'packaged', executablePath: '/tmp/packed/chromium', headlessOnly: true });
    // Our quiet flags, not the package's Lambda flags (no --single-process, no --disable-web-security).
    expect(packaged.launchOptions.args).toEqual(
      expect.arrayContaining(['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']),
    );
    expect(packaged.launchOptions.args).not.toContain('--disable-web-security');
  });

  it('HANDRAIL_SKIP_SYSTEM_BROWSER=1 skips the download and the system browsers, never HANDRAIL_CHROMIUM', () => {
    expect(findChromium({ HANDRAIL_SKIP_SYSTEM_BROWSER: '1' }, every).source).toBe('packaged');
    expect(findChromium({ HANDRAIL_SKIP_SYSTEM_BROWSER: '1', HANDRAIL_CHROMIUM: process.execPath }, every).source).toBe('HANDRAIL_CHROMIUM');
    const caught = thrown(() => findChromium({ HANDRAIL_SKIP_SYSTEM_BROWSER: '1' }, { ...every, packaged: () => undefined }));
    expect((caught as NoBrowserError).code).toBe('NO_BROWSER');
  });

  it('with nothing anywhere the help lists the search order and the one fix', () => {
    const caught = thrown(() => findChromium({}, none));
    expect(caught.message).toBe(NO_BROWSER_HELP);
    const at = (s: string) => NO_BROWSER_HELP.indexOf(s);
    expect(at('HANDRAIL_CHROMIUM')).toBeLessThan(at("Playwright's own download"));
    expect(at("Playwright's own download")).toBeLessThan(at('system browsers'));
    expect(at('system browsers')).toBeLessThan(at('@sparticuz/chromium'));
    expect(NO_BROWSER_HELP).toContain('npm install');
  });

  it.runIf(packagedPackage() !== undefined)('the packaged Chromium unpacks once into a complete directory', () => {
    const choice = findChromium({ HANDRAIL_SKIP_SYSTEM_BROWSER: '1' });
    expect(choice.source).toBe('packaged');
    expect(existsSync(choice.executablePath)).toBe(true);
    expect(choice.executablePath).toMatch(/handrail-chromium-[^/]+\/chromium$/);
    expect(findChromium({ HANDRAIL_SKIP_SYSTEM_BROWSER: '1' }).executablePath).toBe(choice.executablePath);
  });
});
