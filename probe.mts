import { chromium } from 'playwright';
import { startRealApp } from './tests/fixtures/real/server.ts';
const app = await startRealApp();
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await b.newPage();
await page.goto(`${app.url}/widgets`);
await page.getByRole('combobox', { name: 'Priority' }).click();
await page.waitForTimeout(500);
const t0 = Date.now();
const opt = page.getByRole('option', { name: 'High' });
await opt.click();
for (let i = 0; i < 16; i++) {
  const s = await page.evaluate(() => {
    const hidden = [...document.body.children].map((e) => `${e.tagName}#${e.id}:${e.getAttribute('aria-hidden')}`);
    const anims = document.getAnimations().map((a) => `${a.constructor.name}:${a.playState}:${(a as any).transitionProperty ?? (a as any).animationName ?? ''}:${(a.effect?.target as Element)?.className?.toString().slice(0, 25)}`);
    return { hidden, anims, list: !!document.querySelector('[role=listbox]') };
  });
  console.log(Date.now() - t0, JSON.stringify(s));
  await page.waitForTimeout(20);
}
await b.close(); await app.close();
