// The CLI and card reference pages are generated from their sources, so they cannot drift: a page that differs from
// what the command definitions or the card's schema say fails here (run `npm run docs:reference` to write them).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CARD_PAGE, CLI_PAGE, cardReference, cliReference, handrailProgram, staleReferencePages } from '../tools/reference-docs.ts';

describe('generated reference pages', () => {
  it('docs/reference/cli.md and card.md are what the sources generate now', async () => {
    expect(await staleReferencePages()).toEqual([]);
  });

  it('a flag added to a command, or a field to the card, changes the page, so the check above can fail', async () => {
    const program = await handrailProgram();
    const replay = program.commands.find((c) => c.name() === 'replay');
    replay?.option('--made-up-flag', 'a flag nobody documented');
    const cli = cliReference(program);
    expect(cli).toContain('`--made-up-flag` | a flag nobody documented');
    expect(cli).not.toBe(readFileSync(CLI_PAGE, 'utf8'));

    const schema = JSON.parse(readFileSync('capabilities/capability.schema.json', 'utf8')) as Parameters<typeof cardReference>[0];
    schema.properties = { ...schema.properties, made_up: { type: 'string' } };
    expect(cardReference(schema)).toContain('| `made_up` | string |');
    expect(cardReference(schema)).not.toBe(readFileSync(CARD_PAGE, 'utf8'));
  });

  it('every command of the program has its section, subcommands by their full path', async () => {
    const cli = readFileSync(CLI_PAGE, 'utf8');
    for (const name of ['replay', 'author', 'compile', 'verify', 'approve', 'serve', 'demo', 'doctor']) {
      expect(cli).toContain(`## \`handrail ${name}\``);
    }
    expect(cli).toContain('## `handrail evidence verify`');
    expect(cli).toContain('## `handrail referee calibration`');
  });
});
