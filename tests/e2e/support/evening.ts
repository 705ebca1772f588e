// One authoring evening in a real browser, its book written and read back: what the e2e specs that author a card
// share (the launch, the book, the evening, both closed whatever happens, the lines read back by the runner's reader).
import { JsonlBook, readBook } from '../../../runner/author/book.ts';
import { selectorsFor } from '../../../runner/author/selectors.ts';
import { BrowserSurface } from '../../../runner/browser/surface.ts';
import { runEvening, type EveningOptions, type EveningResult } from '../../../shared/author/evening.ts';
import { compile, type CompileOptions } from '../../../shared/compile/compile.ts';
import type { Capability } from '../../../shared/schema/capability.ts';
import type { TraceLine } from '../../../shared/schema/trace.ts';

/**
 * Runs the evening on a fresh BrowserSurface (its own Chromium, unless `launch` makes it otherwise: a context of a
 * shared browser) writing the book at `bookPath`; the evening's result and the book's lines.
 */
export async function eveningInBrowser(
  bookPath: string,
  o: Omit<EveningOptions, 'surface' | 'book' | 'selectorsFor'>,
  launch: () => Promise<BrowserSurface> = () => BrowserSurface.launch(),
): Promise<{ evening: EveningResult; lines: TraceLine[] }> {
  const surface = await launch();
  const book = await JsonlBook.create(bookPath);
  let evening: EveningResult;
  try {
    evening = await runEvening({ ...o, surface, book, selectorsFor: selectorsFor(surface.page) });
  } finally {
    await book.close();
    await surface.close();
  }
  const read = await readBook(bookPath);
  if (!read.ok) throw new Error(`the book ${bookPath} does not read back: ${JSON.stringify(read.problems)}`);
  return { evening, lines: read.lines };
}

/** The card these lines compile to, or an error naming the holes. */
export function compiled(lines: readonly TraceLine[], opts: CompileOptions = {}): Capability {
  const result = compile(lines, opts);
  if (!result.ok) throw new Error(`the book does not compile: ${JSON.stringify(result.holes)}\n${outline(lines)}`);
  return result.card;
}

/** One line per book line — its kind, what it did, and the screens before and after — for a failure's message. */
export function outline(lines: readonly TraceLine[]): string {
  return lines
    .map((l) => {
      const seen = (x: { label?: string | null; signature?: string } | undefined): string => (x ? `${x.label ?? '?'}/${x.signature ?? ''}` : '');
      const o = l as unknown as { seq: number; kind: string; verb?: string; tool?: string; code?: string; label?: string; control?: { role: string; name: string }; value?: string; before?: { label?: string | null; signature?: string }; after?: { label?: string | null; signature?: string }; signature?: string };
      return `${o.seq} ${o.kind} ${o.verb ?? o.tool ?? ''} ${o.control ? `${o.control.role} '${o.control.name}'` : ''} ${o.value ?? ''} ${o.label ?? ''} ${o.code ?? ''} ${seen(o.before)} -> ${seen(o.after)} ${o.signature ?? ''}`;
    })
    .join('\n');
}
