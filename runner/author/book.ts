// The Node host's book: one JSON line per trace line, appended and flushed to disk before the guard goes on.
// Every line is checked with the zod TraceLine on the way out and on the way back in.
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { TraceLine } from '../../shared/schema/trace.ts';
import type { Book } from '../../shared/author/ports.ts';

export class JsonlBook implements Book {
  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
  ) {}

  /** Creates (or truncates) the book at `path`: one evening, one book. */
  static async create(path: string): Promise<JsonlBook> {
    return new JsonlBook(await open(path, 'w', 0o600), path);
  }

  async append(line: TraceLine): Promise<void> {
    const checked = TraceLine.parse(line);
    await this.file.appendFile(`${JSON.stringify(checked)}\n`, 'utf8');
    // The book is what the compiler reads: a line the guard reported written must survive a crash.
    await this.file.sync();
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

export interface BadBookLine {
  line: number;
  message: string;
}

/** Reads a JSONL book; every line that is not a valid trace line is reported with its number. */
export async function readBook(path: string): Promise<{ ok: true; lines: TraceLine[] } | { ok: false; problems: BadBookLine[] }> {
  const text = await readFile(path, 'utf8');
  const lines: TraceLine[] = [];
  const problems: BadBookLine[] = [];
  text.split('\n').forEach((raw, i) => {
    if (!raw.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      problems.push({ line: i + 1, message: 'not JSON' });
      return;
    }
    const parsed = TraceLine.safeParse(json);
    if (parsed.success) lines.push(parsed.data);
    else problems.push({ line: i + 1, message: parsed.error.issues.map((x) => `${x.path.join('.') || '(line)'}: ${x.message}`).join('; ') });
  });
  return problems.length ? { ok: false, problems } : { ok: true, lines };
}
