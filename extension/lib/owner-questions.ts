// The owner's side of a session: a guard's risk question ("is this button a commit?") is put into the session
// record for the side panel and waits, keeping the worker awake, until the panel answers it or the session ends.
import { OwnerError, type Owner, type OwnerAnswer, type OwnerQuestion } from '../../shared/author/ports.ts';
import type { SessionContext } from './session-context.ts';

export class OwnerQuestions {
  readonly #waiting = new Map<string, { resolve: (a: OwnerAnswer) => void; reject: (e: Error) => void }>();

  constructor(private readonly ctx: Pick<SessionContext, 'd' | 'update'>) {}

  /** The owner of one session: each question waits for `answer` (or `dropAll`). */
  owner(session: string): Owner {
    return {
      ask: async (q: OwnerQuestion): Promise<OwnerAnswer> => {
        const id = this.ctx.d.newId();
        const answer = new Promise<OwnerAnswer>((resolve, reject) => this.#waiting.set(id, { resolve, reject }));
        await this.ctx.update(session, (r) => ({ ...r, question: { id, control: q.control, screen: q.screen, goal: q.goal } }));
        const release = this.ctx.d.keepAlive();
        try {
          return await answer;
        } finally {
          release();
          this.#waiting.delete(id);
        }
      },
    };
  }

  /** Answers a waiting question; false when it is no longer waiting (the worker restarted). */
  answer(question: string, a: OwnerAnswer): boolean {
    const q = this.#waiting.get(question);
    if (!q) return false;
    q.resolve(a);
    return true;
  }

  /** A waiting question ends the guard's call with OwnerError: the press it was about never happens. */
  dropAll(): void {
    for (const q of this.#waiting.values()) q.reject(new OwnerError('the session ended before the owner answered'));
    this.#waiting.clear();
  }

  has(question: string): boolean {
    return this.#waiting.has(question);
  }
}
