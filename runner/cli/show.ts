// `handrail show <card> [--html out.html]`: a capability as a reviewer reads it — what it needs (secret inputs
// marked), each step in plain words with its commits highlighted, the screens with the marks that tell apart those
// that can follow a commit, the outcomes, and whether an approval holds for exactly this content (its hash).
// Text on a terminal (commits in bold red on a TTY), or one self-contained HTML page. Nothing here runs the card.
import { writeFile } from 'node:fs/promises';
import { VERBS } from '../../shared/operations.ts';
import type { Capability, Output, Step, Target } from '../../shared/schema/index.ts';
import { approvalStatus, contentHash } from '../approval.ts';
import { CSS, esc } from '../report.ts';
import { UsageError } from './errors.ts';
import { readCard } from './replay.ts';

export interface ShowFlags {
  html?: string;
}

/** A target as words: `button 'F10=Post Hold' in frame 'work'`. */
export function targetWords(t: Target | undefined): string {
  if (!t) return '(an undeclared target)';
  const label = t.name ? ` '${t.name.eq}'` : t.hint ? ` labelled '${t.hint}'` : '';
  const scope = t.scope.length ? ` in ${t.scope.map((s) => `${s.role}${s.column ? ` ${s.column}` : ''} '${s.name}'`).join(' › ')}` : '';
  return `${t.role}${label}${scope}`;
}

/** A value as words: a blank names its input (and says when it is secret); a literal is quoted. */
function valueWords(card: Capability, value: string | undefined): string {
  if (value === undefined) return '';
  return value.replace(/\{\{\s*input\.([a-z0-9_]+)\s*\}\}/g, (_m, name: string) => (card.inputs[name]?.secret ? `the secret ${name}` : card.inputs[name]?.map ? `the ${name}'s code` : `the ${name}`)).replace(/^(?!the )(.*)$/s, "'$1'");
}

export interface StepView {
  n: number;
  id: string;
  effect: string;
  commit: boolean;
  /** The step in plain words: `Type the operator_id into textbox labelled 'Operator ID'`. */
  words: string;
  screen: string;
  then: string;
  rungs: string;
  confirmed_by: string;
}

/** One step as a reviewer reads it: the verb's own wording (shared/operations.ts), the target, where it lands. */
export function stepView(card: Capability, step: Step, i: number): StepView {
  const target = card.targets[step.target];
  const what = targetWords(target);
  const words = VERBS[step.op.verb].compile.intent.replace('{what}', what).replace('{value}', valueWords(card, step.op.value));
  const lands = step.expect?.screen_in ?? (step.settle.kind === 'screen_is' ? [step.settle.screen] : step.settle.kind === 'screen_in' ? step.settle.screens : []);
  const post = (step.post ?? []).map((p) => (p.kind === 'text' ? `the screen says '${p.contains}'` : p.kind === 'row' ? `the row '${p.key}' says '${p.contains}'` : `a ${p.role} '${p.name}' is there`));
  const then = [lands.length ? `expects ${lands.join(' or ')}` : '', post.length ? `then checks ${post.join(' and ')}` : ''].filter(Boolean).join('; ');
  return {
    n: i + 1,
    id: step.id,
    effect: step.effect.kind,
    commit: step.effect.kind === 'commit',
    words: step.intent ? `${step.intent}: ${words}` : words,
    screen: step.screen,
    then,
    rungs: target ? target.ladder.map((r) => r.rung).join(' → ') : '',
    confirmed_by: step.effect.confirmed_by?.owner ?? '',
  };
}

/** An output as words: a regex over a read step, or rows with named columns (docs/design/capability.md, "Rows as outputs"). */
export function outputWords(out: Output): string {
  const what =
    out.kind === 'rows'
      ? `rows from ${out.from_step}, columns ${Object.entries(out.columns).map(([col, c]) => (c.header !== undefined ? `${col} ← '${c.header}'` : `${col} ← the row's text`)).join(', ')}`
      : `text from ${out.from_step} matching /${out.regex}/`;
  return `${what}${out.description ? ` — ${out.description}` : ''}`;
}

function approvalWords(card: Capability): { ok: boolean; line: string; hash: string } {
  const status = approvalStatus(card);
  const hash = contentHash(card);
  const line = status.servable ? `approved by ${status.by} for exactly this content` : `not approved (${status.state.replace(/_/g, ' ')}): ${status.reason.replace(/^a draft: /, '')}`;
  return { ok: status.servable, line, hash };
}

/** An enum input's words, and what each types when the input has a value map ("Value maps"). */
function enumWords(spec: Capability['inputs'][string]): string {
  const words = `one of ${(spec.values ?? []).join(', ')}`;
  const map = spec.map;
  return map ? `${words} (types ${(spec.values ?? []).map((v) => `${v}→${map[v] ?? ''}`).join(', ')})` : words;
}

const BOLD_RED = (s: string): string => `\u001b[1;31m${s}\u001b[0m`;

/** The card as text for a terminal. `tty` highlights commits in colour; otherwise they are marked in capitals. */
export function showText(card: Capability, tty = false): string {
  const out: string[] = [];
  const approval = approvalWords(card);
  out.push(`${card.id} v${card.version} (${card.surface}) — ${card.intent}`, `entry: ${card.entry}`, '');
  out.push(`approval: ${approval.line}`, `content hash: ${approval.hash}`);
  const rel = card.lifecycle.reliability;
  if (rel) out.push(`verified: ${rel.k} of ${rel.n} plates clean (${rel.at})`);
  out.push('', 'inputs:');
  for (const [name, spec] of Object.entries(card.inputs)) {
    const rule = spec.type === 'enum' ? enumWords(spec) : spec.pattern ? `${spec.type} matching ${spec.pattern}` : spec.type;
    out.push(`  ${name}${spec.secret ? '  [SECRET: HANDRAIL_SECRET_' + name.toUpperCase() + ']' : ''}  ${rule}${spec.description ? ` — ${spec.description}` : ''}`);
  }
  if (Object.keys(card.outputs).length) out.push('', 'outputs:', ...Object.entries(card.outputs).map(([name, o]) => `  ${name}  ${outputWords(o)}`));
  out.push('', 'steps:');
  for (const [i, step] of card.steps.entries()) {
    const v = stepView(card, step, i);
    const head = `  ${String(v.n).padStart(2)}. [${v.commit ? 'COMMIT' : v.effect}] ${v.words}`;
    out.push(v.commit && tty ? BOLD_RED(head) : head);
    out.push(`      on ${v.screen}${v.then ? `; ${v.then}` : ''} · found by ${v.rungs}${v.commit ? ` · confirmed a commit by ${v.confirmed_by || 'NOBODY (the card cannot leave draft)'}` : ''}`);
  }
  out.push('', 'screens:');
  for (const [name, s] of Object.entries(card.screens)) {
    const marks = s.marks ? `${s.marks.paths.length} mark path${s.marks.paths.length === 1 ? '' : 's'}${s.marks.text.length ? `, text ${s.marks.text.map((t) => `'${t}'`).join(', ')}` : ''} (can follow a commit)` : 'no marks';
    out.push(`  ${name} — ${s.title} · signature ${s.signature} · ${marks}`);
    for (const p of s.marks?.paths ?? []) out.push(`      mark ${p}`);
    for (const p of s.record_paths ?? []) out.push(`      record ${p}… (filled from the run's inputs)`);
  }
  out.push('', 'outcomes:');
  out.push(`  success: ${card.outcomes.success.screens.join(', ')}`);
  for (const kind of ['business', 'recovery', 'failure'] as const) {
    for (const [name, o] of Object.entries(card.outcomes[kind])) out.push(`  ${kind} ${name}: on ${o.screen}${o.text ? ` saying /${o.text}/` : ''} → ${o.code}${o.description ? ` — ${o.description}` : ''}`);
  }
  const notes = card.lifecycle.review_notes ?? [];
  if (notes.length) out.push('', 'review notes:', ...notes.map((n) => `  - ${typeof n === 'string' ? n : JSON.stringify(n)}`));
  return `${out.join('\n')}\n`;
}

/** The card as one self-contained HTML page (no script, nothing fetched), in the run report's look. */
export function showHtml(card: Capability): string {
  const approval = approvalWords(card);
  const inputs = Object.entries(card.inputs).map(
    ([name, spec]) =>
      `<tr class="${spec.secret ? 'secret' : ''}"><td><code>${esc(name)}</code></td><td>${spec.secret ? `<strong class="secret-tag">secret</strong> <code>HANDRAIL_SECRET_${esc(name.toUpperCase())}</code>` : ''}</td><td>${esc(spec.type === 'enum' ? enumWords(spec) : spec.type)}</td><td><code>${esc(spec.pattern ?? '')}</code></td><td>${esc(spec.description ?? '')}</td></tr>`,
  );
  const steps = card.steps.map((step, i) => {
    const v = stepView(card, step, i);
    return `<tr class="${v.commit ? 'commit' : ''}"><td class="num">${v.n}</td><td><code>${esc(v.id)}</code></td><td>${v.commit ? '<strong>COMMIT</strong>' : esc(v.effect)}</td><td>${esc(v.words)}</td><td>${esc(v.screen)}</td><td>${esc(v.then)}</td><td>${esc(v.rungs)}</td><td>${v.commit ? esc(v.confirmed_by || 'nobody: cannot leave draft') : ''}</td></tr>`;
  });
  const screens = Object.entries(card.screens).map(
    ([name, s]) =>
      `<tr class="${s.marks ? 'marked' : ''}"><td><code>${esc(name)}</code></td><td>${esc(s.title)}</td><td><code>${esc(s.signature)}</code></td><td>${s.marks ? `<ul>${s.marks.paths.map((p) => `<li><code>${esc(p)}</code></li>`).join('')}${s.marks.text.map((t) => `<li>text '${esc(t)}'</li>`).join('')}</ul>` : 'none (cannot follow a commit)'}</td></tr>`,
  );
  const outcomes = (['business', 'recovery', 'failure'] as const).flatMap((kind) =>
    Object.entries(card.outcomes[kind]).map(([name, o]) => `<tr><td>${kind}</td><td><code>${esc(name)}</code></td><td>${esc(o.screen)}</td><td><code>${esc(o.text ?? '')}</code></td><td>${esc(o.code)}</td><td>${esc(o.description ?? '')}</td></tr>`),
  );
  const rel = card.lifecycle.reliability;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(`Handrail card · ${card.id}`)}</title>
<style>${CSS}.secret-tag{color:#b3261e}tr.marked td{background:#f4f8ff}ul{margin:0;padding-left:18px}</style></head>
<body>
<header>
<h1>${esc(card.id)} <small>v${esc(String(card.version))} · ${esc(card.surface)}</small></h1>
<div>${esc(card.intent)}</div>
<div>entry <code>${esc(card.entry)}</code></div>
<div class="verdict approval ${approval.ok ? 'ok' : 'warn'}"><strong>${esc(approval.line)}</strong>${rel ? ` · verified ${esc(String(rel.k))} of ${esc(String(rel.n))} plates clean` : ''}<br>content hash <code>${esc(approval.hash)}</code></div>
</header>
<main>
<h2>Inputs</h2>
<table class="inputs"><thead><tr><th>name</th><th>secret</th><th>type</th><th>pattern</th><th>description</th></tr></thead><tbody>${inputs.join('')}</tbody></table>
${Object.keys(card.outputs).length ? `<h2>Outputs</h2>\n<ul>${Object.entries(card.outputs).map(([name, o]) => `<li><code>${esc(name)}</code> ${esc(outputWords(o))}</li>`).join('')}</ul>` : ''}
<h2>Steps</h2>
<table class="steps"><thead><tr><th>#</th><th>step</th><th>effect</th><th>in plain words</th><th>on screen</th><th>then</th><th>found by</th><th>commit confirmed by</th></tr></thead><tbody>${steps.join('')}</tbody></table>
<h2>Screens</h2>
<table class="screens"><thead><tr><th>screen</th><th>title</th><th>signature</th><th>marks</th></tr></thead><tbody>${screens.join('')}</tbody></table>
<h2>Outcomes</h2>
<p>success: ${esc(card.outcomes.success.screens.join(', '))}</p>
<table class="outcomes"><thead><tr><th>kind</th><th>name</th><th>screen</th><th>text</th><th>code</th><th>description</th></tr></thead><tbody>${outcomes.join('')}</tbody></table>
</main>
</body></html>
`;
}

export async function showCommand(cardPath: string, flags: ShowFlags, stdout: NodeJS.WriteStream = process.stdout): Promise<number> {
  const loaded = await readCard(cardPath);
  if (!loaded.ok) throw new UsageError(loaded.message, 'CARD_INVALID');
  if (flags.html !== undefined) {
    await writeFile(flags.html, showHtml(loaded.card));
    process.stderr.write(`show: ${flags.html} · ${approvalWords(loaded.card).line}\n`);
    stdout.write(`${flags.html}\n`);
    return 0;
  }
  stdout.write(showText(loaded.card, Boolean(stdout.isTTY) && !process.env['NO_COLOR']));
  return 0;
}
