#!/usr/bin/env -S npx tsx
// Rewrites every citation of the old single design document, docs' ARCHITECTURE.md (by path and quoted heading, with
// or without the comma), to the design file that now holds the heading: `docs/design/<file>.md, "Heading"`. A name that
// is a bold lead rather than a heading gets the heading it sits under put before it. A citation with no name goes
// to the index, docs/design/README.md (its checklists to docs/design/extending.md). Safe to run again, after a
// branch that still cites the old file is merged: it touches only citations of the old file. `--dry-run` prints
// what it would change. A README section cited by name (`README "Verify"`) that moved to a page under docs/ is
// rewritten to that page the same way. What it cannot place (a name no design file has, or two have) it leaves as it is and names;
// `npm run check:citations` then fails on it.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findCitations, indexDoc, names, ROOT, sourceFiles, type DocIndex } from '../tests/tools/doc-citations.ts';

/** The old file, spelled so that this script is no citation of it. */
const OLD = ['docs', 'ARCHITECTURE.md'].join('/');
const DESIGN = 'docs/design';
const dryRun = process.argv.includes('--dry-run');

const docs = new Map<string, DocIndex>(
  readdirSync(join(ROOT, DESIGN))
    .filter((f) => f.endsWith('.md'))
    .map((f) => [`${DESIGN}/${f}`, indexDoc(readFileSync(join(ROOT, DESIGN, f), 'utf8'))]),
);

/** Where a name is now: the file whose heading it is, else the file and heading of the bold lead it is. */
function place(name: string): { doc: string; under?: string } | string {
  const byHeading = [...docs].filter(([, ix]) => ix.headings.some((h) => names(h, name)));
  if (byHeading.length === 1) return { doc: byHeading[0]![0] };
  if (byHeading.length > 1) return `"${name}" is a heading of ${byHeading.map(([d]) => d).join(' and ')}`;
  const byLead = [...docs].flatMap(([doc, ix]) => ix.leads.filter((l) => names(l.text, name)).map((l) => ({ doc, under: l.under })));
  const distinct = new Set(byLead.map((l) => `${l.doc}\0${l.under}`));
  if (distinct.size === 1) return byLead[0]!;
  if (distinct.size > 1) return `"${name}" is a bold lead in ${[...distinct].map((d) => d.replace('\0', ' under ')).join(' and ')}`;
  return `no design file has a heading or bold lead "${name}"`;
}

/** Where a citation with no heading goes: its checklists (`…'s checklist`) to their file, anything else to the index. */
function bare(after: string): string {
  return /^`?'s checklist/.test(after) ? `${DESIGN}/extending.md` : `${DESIGN}/README.md`;
}

/** The pages README's sections moved to, for citations of a README section by name (`README "Verify"`). */
const guides = new Map<string, DocIndex>(
  ['docs/guide', 'docs/reference', 'docs'].flatMap((dir) =>
    readdirSync(join(ROOT, dir))
      .filter((f) => f.endsWith('.md'))
      .map((f): [string, DocIndex] => [`${dir}/${f}`, indexDoc(readFileSync(join(ROOT, dir, f), 'utf8'))]),
  ),
);
const readme = indexDoc(readFileSync(join(ROOT, 'README.md'), 'utf8'));
const README_SECTION = /\b(?:the )?README(?:'s)? "([^"\n]{2,80})"/g;

/** `README "Never twice"` → `docs/guide/never-twice.md, "Never twice"`, when only that page has the heading now. */
function readmeSections(file: string, text: string): string {
  if (file === 'README.md' || file.startsWith('docs/') || file === 'scripts/rewrite-citations.ts') return text;
  return text.replace(README_SECTION, (whole, name: string) => {
    if (readme.headings.some((h) => names(h, name))) return whole;
    const pages = [...guides].filter(([, ix]) => ix.headings.some((h) => names(h, name))).map(([doc]) => doc);
    if (pages.length !== 1) {
      unplaced.push(`${file}: README "${name}" is a heading of ${pages.length ? pages.join(' and ') : 'no page'}`);
      return whole;
    }
    changed++;
    return `${pages[0]!}, "${name}"`;
  });
}

let changed = 0;
const unplaced: string[] = [];
for (const file of sourceFiles()) {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const citations = findCitations(file, text).filter((c) => c.doc === OLD);
  let out = text;
  // From the end, so earlier offsets stay true.
  for (const c of [...citations].reverse()) {
    const first = c.names[0];
    const where = first === undefined ? { doc: bare(out.slice(c.end, c.end + 40)) } : place(first);
    if (typeof where === 'string') {
      unplaced.push(`${file}:${c.line}: ${where}`);
      continue;
    }
    // A bold lead's heading goes before it: `"The walker", "The wire form"`, unless it is cited already.
    const parent = where.under !== undefined && c.firstQuote >= 0 ? `"${where.under}", ` : '';
    if (parent) out = out.slice(0, c.firstQuote) + parent + out.slice(c.firstQuote);
    const between = out.slice(c.end, c.firstQuote);
    const addComma = first !== undefined && !c.comma && /^`?\s*(\/\/|\*(?!\/))?[ \t]*$/.test(between);
    const tail = out.slice(c.end, c.end + 1) === '`' ? '`' : '';
    const written = c.split ? where.doc.slice('docs/'.length) : where.doc;
    out = out.slice(0, c.start) + written + (addComma ? tail + ',' : tail) + out.slice(c.end + tail.length);
    changed++;
  }
  out = readmeSections(file, out);
  if (out !== text) {
    if (dryRun) process.stdout.write(`${file}: ${citations.length} citation(s)\n`);
    else writeFileSync(join(ROOT, file), out);
  }
}
for (const u of unplaced) process.stderr.write(`not placed: ${u}\n`);
process.stdout.write(`${dryRun ? 'would rewrite' : 'rewrote'} ${changed} citation(s) of ${OLD}; ${unplaced.length} not placed\n`);
process.exitCode = unplaced.length ? 1 : 0;
