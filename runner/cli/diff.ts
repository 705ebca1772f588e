// `handrail diff <card> <other>`: the semantic diff of two capabilities (runner/diff.ts). Exit 0 when a reviewer
// would see no change, 1 when there is one (like diff), 2 when a card does not load.
import { cardDiff, diffText } from '../diff.ts';
import { UsageError } from './errors.ts';
import { readCard } from './replay.ts';

export async function diffCommand(before: string, after: string, flags: { json?: boolean }): Promise<number> {
  const [a, b] = await Promise.all([readCard(before), readCard(after)]);
  if (!a.ok) throw new UsageError(`${before}: ${a.message.split('\n')[0] ?? ''}`, 'CARD_UNREADABLE');
  if (!b.ok) throw new UsageError(`${after}: ${b.message.split('\n')[0] ?? ''}`, 'CARD_UNREADABLE');
  const changes = cardDiff(a.card, b.card);
  process.stdout.write(`${flags.json ? JSON.stringify(changes) : diffText(a.card, b.card, changes)}\n`);
  return changes.length ? 1 : 0;
}
