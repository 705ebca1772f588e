// Code cites the docs by file and heading; the check finds every citation, passes on the real tree, and fails on a
// heading nobody wrote, a file that is not there, and a second name that is neither a heading nor a bold lead.
import { describe, expect, it } from 'vitest';
import { checkCitations, checkRepository, findCitations, indexDoc } from '../tools/doc-citations.ts';

// Spelled in pieces, so this file is no citation itself (the check reads every file, this one included).
const DESIGN = ['docs', 'design'].join('/');
const REPLAY = `${DESIGN}/replay.md`;

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
    ].join('\n');
    const found = findCitations('x.ts', text);
    expect(found.map((c) => [c.line, c.doc, c.comma, c.names])).toEqual([
      [1, REPLAY, true, ['Naming a screen']],
      [2, REPLAY, false, ['Replay', 'The wire form']],
      [4, REPLAY, true, ['Naming a screen']],
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

  it('holds on the real tree: every citation names a file and a heading that exist', () => {
    const { citations, problems } = checkRepository();
    expect(problems).toEqual([]);
    expect(citations.length).toBeGreaterThan(200);
  });
});
