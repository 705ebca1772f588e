// `handrail show` lets a reviewer read a card without reading JSON: the inputs with the secret marked, each step in
// plain words with the commit picked out, the screens and their marks, and whether the approval holds for this content.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentHash } from '../../runner/approval.ts';
import { readCard } from '../../runner/cli/replay.ts';
import { showHtml, showText } from '../../runner/cli/show.ts';
import type { Capability } from '../../shared/schema/index.ts';
import { handrail } from '../e2e/support/cli.ts';

let card: Capability;
let tmp: string;

const cli = (args: string[]) => handrail(args, process.env);

beforeAll(async () => {
  const loaded = await readCard('capabilities/plumbline-place-hold.json');
  if (!loaded.ok) throw new Error(loaded.message);
  card = loaded.card;
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-show-'));
});
afterAll(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

describe('handrail show, as text', () => {
  it('names the secret input, says each step in plain words, marks the commit and who confirmed it', () => {
    const text = showText(card);
    expect(text).toContain('  password  [SECRET: HANDRAIL_SECRET_PASSWORD]  string — The operator\'s password');
    expect(text).toContain("   2. [stage] Type the password: Type the secret password into textbox labelled 'Password'");
    expect(text).toContain("  10. [COMMIT] Post the hold: Press button 'F10=Post Hold' in frame 'work'");
    expect(text).toContain('on hold_review; expects hold_result or hold_refused · found by role_name → css · confirmed a commit by Handrail maintainers');
    expect(text.match(/\[COMMIT\]/g)).toHaveLength(1);
    expect(text).toContain("      mark work>strong 'HOLD POSTED CONFIRMATION HX-#'");
    expect(text).not.toMatch(/\u001b\[/);
  });

  it('says the approval holds for this content and prints its hash; an edited copy says it no longer holds', () => {
    expect(showText(card)).toContain(`approval: approved by Handrail maintainers for exactly this content\ncontent hash: ${contentHash(card)}`);
    const edited = structuredClone(card);
    edited.intent = `${edited.intent} (edited)`;
    const text = showText(edited);
    expect(text).toContain('approval: not approved (edited after approval): approved by Handrail maintainers, but the card changed since');
    const draft = structuredClone(card);
    draft.lifecycle = { state: 'draft', review_notes: ['add the outcomes'] };
    expect(showText(draft)).toContain('approval: not approved (draft): verify it, then a person approves it');
    expect(showText(draft)).toContain('review notes:\n  - add the outcomes');
    expect(text).toContain(`content hash: ${contentHash(edited)}`);
    expect(contentHash(edited)).not.toBe(contentHash(card));
  });

  it('on a TTY the commit line, and only it, is in bold red', () => {
    const lines = showText(card, true).split('\n').filter((l) => l.includes('\u001b[1;31m'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('[COMMIT] Post the hold');
  });

  it('the command prints the text on stdout; --html writes the page; a bad card is one line naming it', async () => {
    const text = await cli(['show', 'capabilities/plumbline-place-hold.json']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(showText(card));
    const out = path.join(tmp, 'card.html');
    const html = await cli(['show', 'capabilities/plumbline-place-hold.json', '--html', out]);
    expect(html.code).toBe(0);
    expect(html.stdout).toBe(`${out}\n`);
    expect(await fs.readFile(out, 'utf8')).toBe(showHtml(card));
    const broken = path.join(tmp, 'broken.json');
    await fs.writeFile(broken, '{"schema": "handrail.capability/v1", "id": 3}');
    const bad = await cli(['show', broken]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^handrail: CARD_INVALID: .*broken\.json is not a valid capability/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('handrail show, as HTML', () => {
  it('is escaped and script-free, and carries the marks, the secret and the hash', () => {
    const hostile = structuredClone(card);
    hostile.intent = '<script>alert(1)</script> & "quoted"';
    const html = showHtml(hostile);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quoted&quot;');
    expect(html).toContain("content=\"default-src 'none'; style-src 'unsafe-inline'\"");
    expect(html).toContain('<strong class="secret-tag">secret</strong> <code>HANDRAIL_SECRET_PASSWORD</code>');
    expect(html).toContain(contentHash(hostile));
    expect(html.match(/<tr class="commit">/g)).toHaveLength(1);
  });
});
