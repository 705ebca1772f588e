// `handrail referee calibration` and `handrail drift <card>`: readings of the notebook (runner/notebook.ts) in the
// state directory. `openNotebook` is how every command reaches it: a machine where the SQLite module cannot load
// still runs cards — it only keeps no history, and says so once.
import { stateHome } from '../intent.ts';
import type { Notebook } from '../notebook.ts';
import { readCard } from './replay.ts';
import { UsageError } from './errors.ts';

export async function openNotebook(say: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<Notebook | null> {
  try {
    const { Notebook } = await import('../notebook.ts');
    return Notebook.open(stateHome(env));
  } catch (e) {
    say(`note: no run history kept (the notebook could not open: ${(e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''})`);
    return null;
  }
}

export async function calibrationCommand(flags: { backend?: string; json?: boolean }): Promise<number> {
  const { calibrationText } = await import('../notebook.ts');
  const book = await openNotebook((l) => process.stderr.write(`${l}\n`));
  if (!book) return 1;
  try {
    const bins = book.calibration(flags.backend);
    process.stdout.write(`${flags.json ? JSON.stringify(bins) : calibrationText(bins)}\n`);
    return 0;
  } finally {
    book.close();
  }
}

export async function driftCommand(cardPath: string, flags: { json?: boolean; window?: string }): Promise<number> {
  const window = flags.window === undefined ? 20 : Number(flags.window);
  if (!(Number.isInteger(window) && window > 0)) throw new UsageError(`--window expects a positive whole number of runs, got "${flags.window}"`);
  const loaded = await readCard(cardPath);
  if (!loaded.ok) throw new UsageError(loaded.message.split('\n')[0] ?? 'the card does not load', 'CARD_UNREADABLE');
  const { driftText } = await import('../notebook.ts');
  const book = await openNotebook((l) => process.stderr.write(`${l}\n`));
  if (!book) return 1;
  try {
    const rows = book.drift(loaded.card.id, window);
    process.stdout.write(`${flags.json ? JSON.stringify(rows) : driftText(loaded.card.id, rows)}\n`);
    return 0;
  } finally {
    book.close();
  }
}
