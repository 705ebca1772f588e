// The judge of the fake's file system (docs/design/mac.md, "The mac surface"; docs/guide/verify.md, "Verify"): a command judge
// for `handrail verify` that answers, from the fake's saved files (HANDRAIL_MAC_FAKE_STATE), whether the plate's
// file is saved in ~/Documents and with what text. It reads the disk model, never the screen.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { SavedFile } from '../protocol.ts';
import { HOME } from './textedit.ts';

const Ask = z.object({ inputs: z.record(z.string(), z.string()) });

function main(): number {
  const state = process.env['HANDRAIL_MAC_FAKE_STATE'];
  if (!state) {
    process.stderr.write('the fake judge needs HANDRAIL_MAC_FAKE_STATE (pass --judge-env HANDRAIL_MAC_FAKE_STATE)\n');
    return 2;
  }
  const ask = Ask.safeParse(JSON.parse(readFileSync(0, 'utf8')));
  const name = ask.success ? ask.data.inputs['filename'] : undefined;
  if (!name) {
    process.stderr.write('the fake judge needs the plate\'s filename input\n');
    return 2;
  }
  let files: SavedFile[] = [];
  try {
    files = z.array(SavedFile).parse((JSON.parse(readFileSync(state, 'utf8')) as { files?: unknown }).files ?? []);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  const prefix = `${HOME}/Documents/${name}`;
  const file = files.find((f) => f.path === prefix || f.path.startsWith(`${prefix}.`));
  process.stdout.write(`${JSON.stringify(file ? { saved: true, text: file.text } : { saved: false })}\n`);
  return 0;
}

process.exitCode = main();
