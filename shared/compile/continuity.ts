// Is the book one unbroken account? (docs/design/capability.md, "Compile", the book's continuity.) A book is compiled only
// when nothing can have happened between its lines that it does not show:
//   - its lines are numbered 1, 2, 3… in the order they stand (a gap is a lost line, a step back a reordering);
//   - each line carries the hash of the one before (`prev`, shared/schema/trace.ts), so a line changed, removed or
//     moved breaks the chain where it happened (books written before the chain carry none and are held to the
//     numbering only);
//   - the screen each line starts from is the screen the line before left: a change no recorded action explains
//     is an action the recorder did not see (clicked before it was ready, or a line lost when the worker stopped).
// Each break is a hole on the line where it shows, saying what to do.
import { lineHash, type ScreenSeen, type TraceLine } from '../schema/trace.ts';
import type { Hole } from './compile.ts';

const screenName = (s: ScreenSeen): string => (s.label ? `"${s.label}"` : `an unlabelled screen (signature ${s.signature})`);

/** Where a line says its screen was before it happened, if it says. */
function from(l: TraceLine): ScreenSeen | null {
  switch (l.kind) {
    case 'act':
      return l.before;
    case 'label':
    case 'finish':
      return l.screen;
    default:
      return null;
  }
}

/** Where a line leaves the screen, if it says. */
function to(l: TraceLine): ScreenSeen | null {
  switch (l.kind) {
    case 'act':
      return l.after;
    case 'label':
    case 'finish':
      return l.screen;
    default:
      return null;
  }
}

export function continuityHoles(lines: readonly TraceLine[]): Hole[] {
  const holes: Hole[] = [];
  const chained = lines.some((l) => l.prev !== undefined);
  let here: ScreenSeen | null = null;
  lines.forEach((l, i) => {
    const line = i + 1;
    const before = lines[i - 1];
    const wantSeq = before ? before.seq + 1 : 1;
    if (l.seq > wantSeq) {
      const lost = l.seq - wantSeq;
      holes.push({ line, code: 'BOOK_GAP', message: `numbered ${l.seq} after ${wantSeq - 1}: ${lost === 1 ? 'a line is' : `${lost} lines are`} missing here; record this part again` });
    } else if (l.seq < wantSeq) {
      holes.push({ line, code: 'BOOK_ORDER', message: `numbered ${l.seq} after ${wantSeq - 1}: the lines are out of order here; record this part again` });
    }
    if (chained) {
      const want = before ? lineHash(before) : undefined;
      if (l.prev !== want) {
        holes.push({
          line,
          code: 'BOOK_CHAIN',
          message: before
            ? `does not follow line ${line - 1} (its hash of the line before is not that line's): a line was changed, removed or moved here`
            : 'the first line names a line before it: the book does not start here',
        });
      }
    }
    const start = from(l);
    if (start && here && start.signature !== here.signature) {
      holes.push({
        line,
        code: 'UNEXPLAINED_CHANGE',
        message: `the screen changed from ${screenName(here)} to ${screenName(start)} with no recorded action: something was done that the book does not show; record this part again`,
      });
    }
    here = to(l) ?? here;
  });
  return holes;
}
