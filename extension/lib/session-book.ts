// The book of one extension session: trace lines in IndexedDB keyed by (session, seq), numbered by the guard
// (which resumes from the book). Every line is parsed on its way in.
import type { Book } from '../../shared/author/ports.ts';
import { TraceLine } from '../../shared/schema/trace.ts';
import type { BookStore } from './store.ts';

export class SessionBook implements Book {
  constructor(
    private readonly store: BookStore,
    private readonly session: string,
    private readonly onLine: (l: TraceLine) => Promise<void>,
  ) {}

  async append(line: TraceLine): Promise<void> {
    const checked = TraceLine.parse(line);
    await this.store.appendLine(this.session, checked);
    await this.onLine(checked);
  }
}
