// `handrail compile <trace.jsonl> -o card.json`: book → capability draft. Every hole goes to stderr, each naming
// its book line, and the exit code is non-zero; the card is written only when there is none.
import { writeFile } from 'node:fs/promises';
import { cardBytes, compile, type CompileOptions } from '../../shared/compile/compile.ts';
import { postconditionOf } from '../../shared/compile/post.ts';
import type { Postcondition } from '../../shared/schema/capability.ts';
import { readBook } from '../author/book.ts';
import { UsageError } from './errors.ts';

export interface CompileFlags {
  out?: string;
  id?: string;
  /** `step=text:WORDS`, `step=control:ROLE:NAME` or `step=row:KEY:WORDS`, repeatable: a commit's postcondition. */
  post?: string[];
  /** The same forms, repeatable: what a commit's screen shows of its record before the press. */
  pre?: string[];
  /** Commit steps that choose no record (commander gives `--no-record X` as `record: [X]`; `false` without steps). */
  record?: string[] | boolean;
}

/** Parses `--post step=text:{{input.note}}` / `--post step=control:link:{{input.note}}` / `--post
 *  step=row:{{input.title}}:closed` (the row keyed by the title shows "closed"; the key runs to the first colon) into
 *  postconditions by step (shared/compile/post.ts makes each, as the extension's panel does); `flag` names the option
 *  (`--pre` has the same form). */
export function parsePost(specs: readonly string[] = [], flag = '--post'): Record<string, Postcondition[]> {
  const out: Record<string, Postcondition[]> = {};
  for (const spec of specs) {
    const m = /^([a-z][a-z0-9_]*)=(text|control|row):(.*)$/s.exec(spec);
    if (!m) throw new UsageError(`${flag} expects step=text:WORDS, step=control:ROLE:NAME or step=row:KEY:WORDS, got "${spec.length > 60 ? `${spec.slice(0, 60)}…` : spec}"`);
    const [, step, kind, rest] = m as unknown as [string, string, 'text' | 'control' | 'row', string];
    const i = rest.indexOf(':');
    if (kind === 'control' && i < 0) throw new UsageError(`${flag} ${step}=control: expects ROLE:NAME, got "${rest}"`);
    if (kind === 'row' && i < 0) throw new UsageError(`${flag} ${step}=row: expects KEY:WORDS, got "${rest}"`);
    const r = postconditionOf(
      kind === 'text'
        ? { kind, text: rest, role: '', name: '' }
        : kind === 'control'
          ? { kind, text: '', role: rest.slice(0, i), name: rest.slice(i + 1) }
          : { kind, text: rest.slice(i + 1), role: '', name: rest.slice(0, i) },
    );
    if (!r.ok) throw new UsageError(`${flag} ${step}=${kind}: ${r.problem}`);
    (out[step] ??= []).push(r.post);
  }
  return out;
}

/** The steps `--no-record` names, each a step id. */
export function parseNoRecord(record: CompileFlags['record']): string[] {
  const steps = Array.isArray(record) ? record : [];
  for (const s of steps) if (!/^[a-z][a-z0-9_]*$/.test(s)) throw new UsageError(`--no-record expects a step id, got "${s}"`);
  return steps;
}

/** Holes in the book: the book is readable but cannot become a card as it stands. */
export const EXIT_HOLES = 1;

export async function compileCommand(tracePath: string, flags: CompileFlags = {}): Promise<number> {
  if (flags.id !== undefined && !/^[a-z][a-z0-9_]*$/.test(flags.id)) {
    throw new UsageError(`--id expects a lower_snake_case identifier, got "${flags.id}"`);
  }
  let read;
  try {
    read = await readBook(tracePath);
  } catch (e) {
    throw new UsageError(`cannot read ${tracePath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (!read.ok) {
    for (const p of read.problems) process.stderr.write(`${tracePath}:${p.line}: not a trace line: ${p.message}\n`);
    return EXIT_HOLES;
  }
  const opts: CompileOptions = { post: parsePost(flags.post), pre: parsePost(flags.pre, '--pre'), noRecord: parseNoRecord(flags.record) };
  if (flags.id !== undefined) opts.id = flags.id;
  const result = compile(read.lines, opts);
  if (!result.ok) {
    for (const h of result.holes) process.stderr.write(`${tracePath}:${h.line}: ${h.code}: ${h.message}\n`);
    process.stderr.write(`${result.holes.length} hole(s): no card written\n`);
    return EXIT_HOLES;
  }
  const bytes = cardBytes(result.card);
  if (flags.out) await writeFile(flags.out, bytes, 'utf8');
  else process.stdout.write(bytes);
  process.stderr.write(`compiled ${result.card.id}: ${result.card.steps.length} steps, ${Object.keys(result.card.targets).length} targets (draft)\n`);
  for (const n of result.notes) process.stderr.write(`review: ${n}\n`);
  return 0;
}
