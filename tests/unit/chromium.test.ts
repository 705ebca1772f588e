// Where Playwright cannot download a browser, Handrail still finds one, and says exactly what to do when none is there.
import { describe, expect, it } from 'vitest';
import { findChromium, NO_BROWSER_HELP, NoBrowserError } from '../../runner/browser/chromium.ts';

describe('finding a Chromium', () => {
  it('HANDRAIL_CHROMIUM wins when it points at a file', () => {
    const choice = findChromium({ HANDRAIL_CHROMIUM: process.execPath });
    expect(choice).toMatchObject({ source: 'HANDRAIL_CHROMIUM', executablePath: process.execPath });
    expect(choice.launchOptions.args).toEqual(expect.arrayContaining(['--no-sandbox', '--disable-background-networking']));
  });

  it('a HANDRAIL_CHROMIUM that points nowhere is an error that names the path and the fix', () => {
    let caught: unknown;
    try {
      findChromium({ HANDRAIL_CHROMIUM: '/nonexistent/chrome' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(NoBrowserError);
    expect((caught as NoBrowserError).code).toBe('NO_BROWSER');
    expect((caught as Error).message).toContain('/nonexistent/chrome');
    expect((caught as Error).message).toContain('apt-get install -y chromium');
  });

  it('the help lists the search order', () => {
    expect(NO_BROWSER_HELP.indexOf('HANDRAIL_CHROMIUM')).toBeLessThan(NO_BROWSER_HELP.indexOf("Playwright's own download"));
    expect(NO_BROWSER_HELP.indexOf("Playwright's own download")).toBeLessThan(NO_BROWSER_HELP.indexOf('system browsers'));
  });
});
