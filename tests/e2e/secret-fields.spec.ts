// A secret is typed only where the page hides it: into a field that shows its text, replay refuses unless the card's
// step says so; and then every screenshot masks that field's box, and the evidence says it did.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Bank } from '../../demo/plumbline/server.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { runCapability } from '../../runner/run.ts';
import { loadCapability, type CapabilityInput } from '../../shared/schema/index.ts';
import { bankScene } from './support/bank.ts';

// Eight characters: the Operator ID field's maxlength.
const SECRET = `k${randomBytes(3).toString('hex')}z`;
let bank: Bank;
let scratch: string;
bankScene({ scratch: 'handrail-secret-fields-' }, (s) => ({ app: bank, scratch } = s));

/** Types the secret into the sign-on page's Operator ID field: a plain text field that shows what is typed. */
async function nicknameCard(showsSecret: boolean): Promise<CapabilityInput> {
  const surface = await BrowserSurface.launch();
  let obs;
  try {
    await surface.open(`${bank.url}/signon`);
    obs = await surface.observe();
  } finally {
    await surface.close();
  }
  return {
    schema: 'handrail.capability/v1',
    id: 'type_secret_into_nickname',
    intent: 'Type a secret into a field that shows it',
    surface: 'browser',
    entry: '{{env.BASE_URL}}/signon',
    inputs: { token: { type: 'string', secret: true } },
    screens: { signon: { title: 'Sign On', signature: obs.signature, paths: obs.paths } },
    targets: {
      operator: { role: 'textbox', hint: 'Operator ID', supports: ['set_value', 'read'], ladder: [{ rung: 'label', cost: 200 }], fingerprint: { over: ['role'] } },
    },
    steps: [
      { id: 'type_token', screen: 'signon', op: { verb: 'set_value', value: '{{input.token}}' }, target: 'operator', effect: { kind: 'stage' }, ...(showsSecret ? { shows_secret: true as const } : {}) },
    ],
    outcomes: { success: { screens: ['signon'] } },
    lifecycle: { state: 'draft' },
  };
}

async function run(card: CapabilityInput) {
  const loaded = loadCapability(card);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  return runCapability({
    card: loaded.value,
    inputs: { token: SECRET },
    env: { BASE_URL: bank.url },
    surface: () => BrowserSurface.launch(),
    evidenceDir: await mkdtemp(join(scratch, 'ev-')),
    allowUnapproved: true,
  });
}

test('a secret is not typed into a field that shows it unless the step says so', async () => {
  const r = await run(await nicknameCard(false));
  expect(r).toMatchObject({ word: 'FAILED', code: 'SECRET_FIELD', at_step: 'type_token' });
  expect(r.message).toContain('not report as a password field');
});

test('a screenshot masks the box of a field holding a secret, and says how many it masked', async ({ browser }) => {
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`${bank.url}/signon`);
    const obs = await surface.observe();
    const field = obs.parts.flatMap((p) => p.controls).find((c) => c.hint === 'Operator ID');
    if (!field) throw new Error('no Operator ID field');
    expect(field.secret).toBeUndefined();
    expect(obs.parts.flatMap((p) => p.controls).find((c) => c.hint === 'Password')?.secret).toBe(true);
    await surface.act(field.ref, { verb: 'set_value', value: SECRET, secret: true });
    const png = Buffer.from(await surface.evidence('screenshot'));
    expect(surface.maskedLastShot).toBe(1);
    // The masked picture: the field's box is solid magenta (the mask colour; the page itself is black and green) where the text would show.
    const box = await surface.page.locator('input[name=opid]').boundingBox();
    if (!box) throw new Error('no operator box');
    const page = await surface.page.context().newPage();
    const pixel = await page.evaluate(
      async ({ src, x, y }) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width;
        c.height = img.height;
        const g = c.getContext('2d') as CanvasRenderingContext2D;
        g.drawImage(img, 0, 0);
        return [...g.getImageData(x, y, 1, 1).data];
      },
      { src: `data:image/png;base64,${png.toString('base64')}`, x: Math.round(box.x + 4), y: Math.round(box.y + box.height / 2) },
    );
    expect(pixel).toEqual([255, 0, 255, 255]);
    // Without a secret typed, the same field is not masked.
    await surface.open(`${bank.url}/signon`);
    await surface.evidence('screenshot');
    expect(surface.maskedLastShot).toBe(0);
  } finally {
    await surface.close();
  }
});

test('a field holding a secret inside a shadow root is found and masked too, and a page without one is not masked', async ({ browser }) => {
  // The tag is counted with one evaluate per frame (not a locator), so it must look into shadow roots as the mask does.
  const html = `<!doctype html><title>Shadow sign-on</title><x-login></x-login><script>
    customElements.define('x-login', class extends HTMLElement {
      connectedCallback() {
        this.attachShadow({ mode: 'open' }).innerHTML = '<label>Pass phrase <input type="password" name="pw"></label>';
      }
    });
  </script>`;
  const surface = await BrowserSurface.launch({ browser });
  try {
    await surface.open(`data:text/html,${encodeURIComponent(html)}`);
    const field = (await surface.observe()).parts.flatMap((p) => p.controls).find((c) => c.secret === true);
    if (!field) throw new Error('no secret field in the shadow root');
    await surface.act(field.ref, { verb: 'set_value', value: SECRET, secret: true });
    await surface.evidence('screenshot');
    expect(surface.maskedLastShot).toBe(1);
    // The field's page is gone: nothing to mask, and the fast capture is taken.
    await surface.open(`${bank.url}/signon`);
    const png = Buffer.from(await surface.evidence('screenshot'));
    expect(surface.maskedLastShot).toBe(0);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  } finally {
    await surface.close();
  }
});
