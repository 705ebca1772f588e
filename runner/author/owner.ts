// Owners for the Node host: a person at the terminal (`--owner-policy ask`), or, for unattended runs, a policy
// that answers "commit" for every button in the owner's name (`--owner-policy commit`) — recorded in the book.
import { createInterface } from 'node:readline/promises';
import { OwnerError, type Owner, type OwnerAnswer, type OwnerQuestion } from '../../shared/author/ports.ts';

export class CommitPolicyOwner implements Owner {
  constructor(private readonly name: string) {}
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
        const got = await Promise.race([
          rl.question(
            `\n${this.name}: the model wants to press ${q.control}${where}.\n` +
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
