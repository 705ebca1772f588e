// Owners for the Node host: a person at the terminal (`--owner-policy ask`), answers written down beforehand
// (`--owner-answers FILE`), or, for unattended runs, a policy in the owner's name (`--owner-policy commit`) computed
// from the effects seen: an action that sends a write is a commit, one asked about before anything was sent (a
// surface that cannot watch writes) is too — recorded in the book. docs/design/authoring.md, "Authoring".
import { createReadStream } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
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

/**
 * One reader for a whole evening. Lines that arrive before a question (answers piped on stdin) wait in a queue for
 * it; a reader per question would drop them with its buffer.
 */
export class LineReader {
  readonly #rl: Interface;
  readonly #queue: string[] = [];
  readonly #waiting: ((line: string | null) => void)[] = [];
  #closed = false;

  constructor(input: NodeJS.ReadableStream) {
    this.#rl = createInterface({ input, terminal: false, crlfDelay: Infinity });
    this.#rl.on('line', (line) => {
      const w = this.#waiting.shift();
      if (w) w(line);
      else this.#queue.push(line);
    });
    this.#rl.on('close', () => {
      this.#closed = true;
      for (const w of this.#waiting.splice(0)) w(null);
    });
    // A file that cannot be read ends the reader; the owner then says why.
    input.on('error', () => this.#rl.close());
  }

  /** The next line, or null once the input has ended. */
  next(): Promise<string | null> {
    const line = this.#queue.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  close(): void {
    this.#rl.close();
  }
}

/**
 * Asks on stderr and reads the answer from one line source: the terminal (stdin), or an answers file with one answer
 * per line (`#` comments and blank lines skipped), read in order. stdout stays for results.
 */
export class TerminalOwner implements Owner {
  readonly #reader: LineReader;
  #asked = 0;

  constructor(
    private readonly name: string,
    input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stderr,
    /** Where the answers come from, for messages: 'the terminal' or the answers file's name. */
    private readonly source = 'the terminal',
  ) {
    this.#reader = new LineReader(input);
  }

  /** An owner whose answers were written into a file beforehand (`--owner-answers FILE`). */
  static fromFile(name: string, file: string, output: NodeJS.WritableStream = process.stderr): TerminalOwner {
    return new TerminalOwner(name, createReadStream(file, { encoding: 'utf8' }), output, file);
  }

  async ask(q: OwnerQuestion): Promise<OwnerAnswer> {
    this.#asked++;
    const where = q.screen ? ` on screen ${q.screen}` : '';
    const sends = q.writes?.length ? ` It is sending ${q.writes.join(', ')} (held until you answer).` : '';
    for (let i = 0; i < 3; i++) {
      this.output.write(
        `\n${this.name}: the model wants to press ${q.control}${where}.${sends}\n` +
          `Is it a commit (changes something that matters), navigate (only moves), or stage (fills in)? [c/n/s] `,
      );
      const got = await this.#answerLine();
      if (got === null) {
        throw new OwnerError(`${this.source} closed before the owner answered question ${this.#asked}`);
      }
      const answer = ANSWERS[got.trim().toLowerCase()];
      if (answer) {
        if (this.source !== 'the terminal') this.output.write(`${got.trim()}\n`);
        return { answer, name: this.name };
      }
      this.output.write(`"${got.trim().slice(0, 20)}" is not an answer: type c, n or s.\n`);
    }
    throw new OwnerError(`no answer from the owner after three questions (question ${this.#asked})`);
  }

  /** The next line that is an answer: an answers file's comments and blank lines are skipped. */
  async #answerLine(): Promise<string | null> {
    for (;;) {
      const line = await this.#reader.next();
      if (line === null) return null;
      if (this.source === 'the terminal') return line;
      const t = line.trim();
      if (t && !t.startsWith('#')) return t;
    }
  }

  close(): void {
    this.#reader.close();
  }
}
