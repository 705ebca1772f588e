// Test support: a card file read as `handrail replay` reads it (runner/cli/replay.ts); one that does not load fails the
// spec's setup with replay's own message.
import { readCard } from '../../../runner/cli/replay.ts';
import type { Capability } from '../../../shared/schema/index.ts';

export async function cardAt(path: string): Promise<Capability> {
  const r = await readCard(path);
  if (!r.ok) throw new Error(r.message);
  return r.card;
}
