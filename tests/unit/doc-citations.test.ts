// Code cites the docs by file and heading; the check finds every citation, passes on the real tree, and fails on a
// heading nobody wrote, a file that is not there, and a second name that is neither a heading nor a bold lead; the
// links between the docs pages fail the same way on a missing page or anchor.
import { describe, expect, it } from 'vitest';
import { checkCitations, checkLinks, checkRepository, findCitations, findLinks, indexDoc, slug } from '../tools/doc-citations.ts';

// Spelled in pieces, so this file is no citation itself (the check reads every file, this one included).
const DESIGN = ['docs', 'design'].join('/');
const REPLAY = `${DESIGN}/replay.md`;
const START = [DESIGN.replace('design', 'guide'), 'start.md'].join('/');

const replayDoc = [
  '# Replay and the truth of the word',
  '## Replay',
  '### Naming a screen',
  '- **The wire form** (`shared/dom/wire.ts`) carries an observation.',
  '- `choose` is a custom ARIA combobox.',
  '```',
  '## Not a heading (in a fence)',
  '```',
].join('\n');
const read = (doc: string): string | null => (doc === REPLAY ? replayDoc : null);
const check = (text: string) => checkCitations(findCitations('x.ts', text), read);

describe('doc citations', () => {
  it('finds a citation in its house form, without the comma, and across a comment line break', () => {
    const text = [
      `// see (${REPLAY}, "Naming a screen").`,
      `// also ${REPLAY} "Replay", "The wire form" and`,
      `/**`,
      ` * the rule (${REPLAY},`,
      ` * "Naming a`,
      ` * screen").`,
      ` */`,
      `// and the rule (${DESIGN.split('/')[0]}/`,
      `// ${REPLAY.split('/').slice(1).join('/')}, "Replay").`,
    ].join('\n');
    const found = findCitations('x.ts', text);
    expect(found.map((c) => [c.line, c.doc, c.comma, c.names])).toEqual([
      [1, REPLAY, true, ['Naming a screen']],
      [2, REPLAY, false, ['Replay', 'The wire form']],
      [4, REPLAY, true, ['Naming a screen']],
      [9, REPLAY, true, ['Replay']],
    ]);
    expect(check(text)).toEqual([]);
  });

  it('fails on a made-up heading, naming the file, the line and what is missing', () => {
    const problems = check(`// ok (${REPLAY}, "Replay")\n// wrong (${REPLAY}, "A heading nobody wrote")`);
    expect(problems).toEqual([
      { file: 'x.ts', line: 2, citation: `${REPLAY}, "A heading nobody wrote"`, problem: `${REPLAY} has no heading "A heading nobody wrote"` },
    ]);
  });

  it('fails on a file that does not exist, with or without a heading', () => {
    const gone = `${DESIGN}/gone.md`;
    expect(check(`// (${gone}, "Replay") and (${gone})`).map((p) => p.problem)).toEqual([`${gone} does not exist`, `${gone} does not exist`]);
  });

  it('takes a second name that is a heading, a bold lead or a list item led by code, and nothing else', () => {
    expect(check(`// (${REPLAY}, "Replay", "The wire form")`)).toEqual([]);
    expect(check(`// (${REPLAY}, "Replay", "choose")`)).toEqual([]);
    expect(check(`// (${REPLAY}, "Replay", "Naming a screen")`)).toEqual([]);
    expect(check(`// (${REPLAY}, "Replay", "The wire")`).map((p) => p.problem)).toEqual([`${REPLAY} has no heading or bold lead "The wire"`]);
  });

  it('does not take a bold lead as the first name, nor a heading inside a code fence', () => {
    expect(check(`// (${REPLAY}, "The wire form")`)).toHaveLength(1);
    expect(check(`// (${REPLAY}, "Not a heading (in a fence)")`)).toHaveLength(1);
    expect(indexDoc(replayDoc).headings).not.toContain('Not a heading (in a fence)');
  });

  it('a heading cited by its start is found when the rest follows a colon, a comma, a full stop or a parenthesis', () => {
    expect(check(`// (${REPLAY}, "Replay and the truth")`)).toHaveLength(1);
    expect(check(`// (${REPLAY}, "Replay and the truth of the word")`)).toEqual([]);
  });

  it('a docs link must reach a page that exists, and its anchor one of that page\'s headings', () => {
    expect(slug("The extension's trusted input")).toBe('the-extensions-trusted-input');
    expect(slug('A person on the ladder: `--console`')).toBe('a-person-on-the-ladder---console');
    const page = '# Guide\n## Getting a Chromium\n```\n[in a fence](nowhere.md)\n```\n';
    const pages: Record<string, string> = { [START]: page, [REPLAY]: replayDoc };
    const links = findLinks(START, [
      '[ok](#getting-a-chromium) [ok](../design/replay.md#naming-a-screen) [web](https://example.com/x.md)',
      '[made up](../design/replay.md#a-heading-nobody-wrote) [gone](../design/gone.md)',
      page,
    ].join('\n'));
    expect(links.map((l) => l.target)).toEqual([
      '#getting-a-chromium', '../design/replay.md#naming-a-screen', '../design/replay.md#a-heading-nobody-wrote', '../design/gone.md',
    ]);
    const problems = checkLinks(links, (p) => pages[p] ?? null, (p) => p in pages);
    expect(problems.map((p) => [p.line, p.problem])).toEqual([
      [2, `${REPLAY} has no heading whose anchor is #a-heading-nobody-wrote`],
      [2, `${DESIGN}/gone.md does not exist`],
    ]);
  });

  it('holds on the real tree: every citation and docs link names a file and a heading that exist', () => {
    const { citations, links, problems } = checkRepository();
    expect(problems).toEqual([]);
    expect(citations.length).toBeGreaterThan(200);
    expect(links.length).toBeGreaterThan(50);
  });
});
