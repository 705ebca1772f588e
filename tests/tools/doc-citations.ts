// Citations of the docs by file and heading (`docs/design/replay.md, "Naming a screen"`) as a check that fails the
// build: a cited file must exist, and its first quoted name must be a heading of it (a second one, `"The walker",
// "The wire form"`, a heading or a bold lead of the same file). The markdown links between README.md and the pages
// under docs/ are held the same way: the file must exist, and an `#anchor` must be one of its headings. Headings are an API the code calls, so a renamed
// heading fails here, not in a reader's head. Run by `npm run check:citations`; tests/unit/doc-citations.test.ts
// shows it failing on a made-up heading. scripts/rewrite-citations.ts moves citations of the old single
// ARCHITECTURE.md to the design file that holds the heading, with the same parser.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Citation {
  /** Repo-relative file the citation is written in. */
  file: string;
  line: number;
  /** The cited document, repo-relative (`docs/design/replay.md`). */
  doc: string;
  /** Offsets of the document's path in the citing text (without backticks; only the part after `docs/` if split). */
  start: number;
  end: number;
  /** Whether the path is broken onto the next comment line after `docs/`. */
  split: boolean;
  /** Whether a comma follows the path (the house form), so a rewrite knows whether to add one. */
  comma: boolean;
  /** The quoted names after the path, in order, line breaks and comment markers folded into one space. */
  names: string[];
  /** Offset of the first quoted name's opening quote, or -1. */
  firstQuote: number;
}

export interface Problem {
  file: string;
  line: number;
  citation: string;
  problem: string;
}

/** What a document offers to cite: its headings, the bold leads of its paragraphs and list items, and list items led by a name in code. */
export interface DocIndex {
  headings: string[];
  /** Each bold lead with the heading it sits under. */
  leads: { text: string; under: string }[];
}

/** `docs/…md`, perhaps broken after `docs/` onto the comment's next line. */
const PATH = /`?docs\/(\r?\n[ \t]*(?:\/\/|\*(?!\/))?[ \t]*)?([\w./-]+?\.md)\b`?/g;

/** Skips spaces, and line breaks with the comment marker that continues a comment on the next line. */
function skipGap(text: string, i: number): number {
  for (;;) {
    const rest = /^[ \t]*(\r?\n[ \t]*(\/\/|\*(?!\/))?[ \t]*)?/.exec(text.slice(i, i + 200));
    const n = rest?.[0].length ?? 0;
    if (n === 0) return i;
    i += n;
    if (!rest?.[1]) return i;
  }
}

/** A quoted name starting at `i` (a `"`), folded to one line; null when it is no short name. */
function quoted(text: string, i: number): { name: string; end: number } | null {
  if (text[i] !== '"') return null;
  const close = text.indexOf('"', i + 1);
  if (close < 0 || close - i > 200) return null;
  const raw = text.slice(i + 1, close);
  if (/\n[ \t]*\n/.test(raw)) return null;
  const name = raw.replace(/[ \t]*\r?\n[ \t]*(\/\/|\*(?!\/))?[ \t]*/g, ' ').trim();
  return name ? { name, end: close + 1 } : null;
}

/** Every citation of a docs/ markdown file in one file's text. */
export function findCitations(file: string, text: string): Citation[] {
  const found: Citation[] = [];
  for (const m of text.matchAll(PATH)) {
    const tail = m[2] ?? '';
    const doc = `docs/${tail}`;
    const split = m[1] !== undefined;
    const start = (m.index ?? 0) + m[0].lastIndexOf(split ? tail : doc);
    const end = (m.index ?? 0) + m[0].lastIndexOf(tail) + tail.length;
    let i = (m.index ?? 0) + m[0].length;
    const comma = text[i] === ',';
    if (comma) i++;
    i = skipGap(text, i);
    if (text[i] === '(') i = skipGap(text, i + 1);
    const names: string[] = [];
    let firstQuote = -1;
    for (let q = quoted(text, i); q; ) {
      if (firstQuote < 0) firstQuote = i;
      names.push(q.name);
      i = q.end;
      if (text[i] !== ',') break;
      i = skipGap(text, i + 1);
      q = quoted(text, i);
    }
    const line = text.slice(0, start).split('\n').length;
    found.push({ file, line, doc, start, end, split, comma, names, firstQuote });
  }
  return found;
}

/** Headings and bold leads of a markdown text (fenced code left out). */
export function indexDoc(markdown: string): DocIndex {
  const headings: string[] = [];
  const leads: DocIndex['leads'] = [];
  let fence = false;
  let under = '';
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fence = !fence;
    if (fence) continue;
    const h = /^#{1,6} +(.*?)\s*$/.exec(line);
    if (h) {
      under = h[1] ?? '';
      headings.push(under);
      continue;
    }
    for (const b of line.matchAll(/\*\*([^*]+?)\*\*/g)) leads.push({ text: b[1] ?? '', under });
    // A list keyed by a name in code (`- \`choose\` is …`, the verbs on the browser) is cited by that name.
    const item = /^\s*[-*] `([^`]+)`/.exec(line);
    if (item) leads.push({ text: item[1] ?? '', under });
  }
  return { headings, leads };
}

/** Whether `offered` is the cited name: the same, or it goes on after a colon, comma, full stop or parenthesis. */
export function names(offered: string, cited: string): boolean {
  if (offered === cited) return true;
  return offered.startsWith(cited) && /^(\.|:|,| \()/.test(offered.slice(cited.length));
}

/** What is wrong with each citation, given a way to read a cited document (null: no such file). */
export function checkCitations(citations: readonly Citation[], read: (doc: string) => string | null): Problem[] {
  const problems: Problem[] = [];
  const cache = new Map<string, DocIndex | null>();
  for (const c of citations) {
    if (!cache.has(c.doc)) {
      const text = read(c.doc);
      cache.set(c.doc, text === null ? null : indexDoc(text));
    }
    const index = cache.get(c.doc);
    const citation = [c.doc, ...c.names.map((n) => `"${n}"`)].join(', ');
    const report = (problem: string): void => void problems.push({ file: c.file, line: c.line, citation, problem });
    if (!index) {
      report(`${c.doc} does not exist`);
      continue;
    }
    const [first, ...rest] = c.names;
    if (first === undefined) continue;
    if (!index.headings.some((h) => names(h, first))) {
      report(`${c.doc} has no heading "${first}"`);
      continue;
    }
    for (const sub of rest) {
      if (!index.headings.some((h) => names(h, sub)) && !index.leads.some((l) => names(l.text, sub))) {
        report(`${c.doc} has no heading or bold lead "${sub}"`);
      }
    }
  }
  return problems;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped but `-` and `_`, each space a `-`. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

export interface Link {
  file: string;
  line: number;
  /** As written: a path relative to the file, an `#anchor`, or both. */
  target: string;
}

/** The relative links of a markdown text, outside code fences (web addresses left out). */
export function findLinks(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  let fence = false;
  markdown.split('\n').forEach((text, i) => {
    if (text.startsWith('```')) fence = !fence;
    if (fence) return;
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? '';
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** What is wrong with each link, given a way to read a repo-relative file (null: no such file or a folder). */
export function checkLinks(links: readonly Link[], read: (path: string) => string | null, exists: (path: string) => boolean): Problem[] {
  const problems: Problem[] = [];
  for (const l of links) {
    const [path = '', anchor] = l.target.split('#');
    const to = path ? posix.normalize(posix.join(posix.dirname(l.file), path)) : l.file;
    const report = (problem: string): void => void problems.push({ file: l.file, line: l.line, citation: l.target, problem });
    if (!exists(to)) {
      report(`${to} does not exist`);
      continue;
    }
    if (!anchor || !to.endsWith('.md')) continue;
    const text = read(to);
    if (text !== null && !indexDoc(text).headings.some((h) => slug(h) === anchor)) report(`${to} has no heading whose anchor is #${anchor}`);
  }
  return problems;
}

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TEXT = /\.(ts|tsx|mts|mjs|js|md|json|html|css|ya?ml|sh|txt|swift)$|(^|\/)\.ci\/[^/.]+$/;

/** The repository's text files that may cite a document: tracked and new, ignored ones left out. */
export function sourceFiles(root = ROOT): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' });
  return out
    .split('\0')
    .filter((f) => f && TEXT.test(f) && existsSync(join(root, f)))
    .filter((f) => !f.endsWith('package-lock.json') && !f.startsWith('tests/golden/'));
}

/** Every citation and every docs link in the repository, and what is wrong with each. */
export function checkRepository(root = ROOT): { citations: Citation[]; links: Link[]; problems: Problem[] } {
  const files = sourceFiles(root);
  const citations = files.flatMap((f) => findCitations(f, readFileSync(join(root, f), 'utf8')));
  const pages = files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md')));
  const links = pages.flatMap((f) => findLinks(f, readFileSync(join(root, f), 'utf8')));
  const exists = (path: string): boolean => existsSync(join(root, path));
  const read = (doc: string): string | null => (exists(doc) && statSync(join(root, doc)).isFile() ? readFileSync(join(root, doc), 'utf8') : null);
  return { citations, links, problems: [...checkCitations(citations, read), ...checkLinks(links, read, exists)] };
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (invokedDirectly) {
  const { citations, links, problems } = checkRepository();
  for (const p of problems) process.stderr.write(`${p.file}:${p.line}: ${p.citation}: ${p.problem}\n`);
  const counted = `${citations.length} doc citations and ${links.length} docs links`;
  if (problems.length) {
    process.stderr.write(`${problems.length} of ${counted} point nowhere\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`${counted}, each to a file and heading that exist\n`);
  }
}
