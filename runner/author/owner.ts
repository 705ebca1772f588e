// Owners for the Node host: a person at the terminal (`--owner-policy ask`), or, for unattended runs, a policy
// in the owner's name (`--owner-policy commit`) computed from the effects seen: an action that sends a write is a
// commit, one asked about before anything was sent (a surface that cannot watch writes) is too — recorded in the book.
import { createInterface } from 'node:readline/promises';
import { OwnerError, type Owner, type OwnerAnswer, type OwnerQuestion } from '../../shared/author/ports.ts';

export class CommitPolicyOwner implements Owner {
  constructor(private readonly name: string) {}
  /**
   * Where writes are watched, the guard asks only about an action that is sending one: that is a commit. Where
   * they cannot be, a press is asked about before it happens, and the policy cannot know: a commit, to be safe.
   */
  ask(): Promise<OwnerAnswer> {
    return Promise.resolve({ answer: 'commit', name: this.name });
  }
}

const ANSWERS: Record<string, OwnerAnswer['answer']> = {
  c: 'commit',
  commit: 'commit',
  n: 'navigate',
  navigate: 'navigate',
  s: 'stage',
  stage: 'stage',
};

/** Asks on stderr/stdin; stdout stays for results. */
export class TerminalOwner implements Owner {
  constructor(
    private readonly name: string,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stderr,
  ) {}

  async ask(q: OwnerQuestion): Promise<OwnerAnswer> {
    const rl = createInterface({ input: this.input, output: this.output, terminal: false });
    // A closed stdin would leave the question pending forever: end the evening instead.
    const closed = new Promise<never>((_, reject) => rl.once('close', () => reject(new OwnerError('the terminal closed before the owner answered'))));
    closed.catch(() => undefined);
    try {
      for (let i = 0; i < 3; i++) {
        const where = q.screen ? ` on screen ${q.screen}` : '';
        const sends = q.writes?.length ? ` It is sending ${q.writes.join(', ')} (held until you answer).` : '';
        const got = await Promise.race([
          rl.question(
            `\n${this.name}: the model wants to press ${q.control}${where}.${sends}\n` +
              `Is it a commit (changes something that matters), navigate (only moves), or stage (fills in)? [c/n/s] `,
          ),
          closed,
        ]);
        const answer = ANSWERS[got.trim().toLowerCase()];
        if (answer) return { answer, name: this.name };
      }
      throw new OwnerError('no answer from the owner after three questions');
    } catch (e) {
      if (e instanceof OwnerError) throw e;
      throw new OwnerError(`the owner could not be asked: ${(e as Error).message}`);
    } finally {
      rl.close();
    }
  }
}
