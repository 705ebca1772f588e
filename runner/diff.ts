// A semantic diff of two capabilities, for the reviewer of a repair proposal or any edit: what changed in the terms
// a card is reviewed in — inputs, screens (signature, furniture, marks), targets (role, name, ladder), steps (order,
// verb, target, and above all the effect sticker: a step that became a commit is the first thing said), outcomes —
// rather than a line diff of JSON. Pure: the CLI (`handrail diff`) renders it.
import { contentHash } from './approval.ts';
import type { Capability } from '../shared/schema/capability.ts';

export type Area = 'card' | 'inputs' | 'outputs' | 'screens' | 'targets' | 'steps' | 'outcomes' | 'lifecycle';

export interface Change {
  area: Area;
  key: string;
  what: 'added' | 'removed' | 'changed';
  detail: string;
  /** A change a reviewer must not miss: a commit added, removed or re-stickered, a secret flag flipped. */
  serious: boolean;
}

const json = (v: unknown): string => JSON.stringify(v);
const same = (a: unknown, b: unknown): boolean => json(a) === json(b);

function keyed<T>(area: Area, a: Record<string, T>, b: Record<string, T>, changed: (k: string, x: T, y: T) => Change[], serious: (v: T) => boolean = () => false): Change[] {
  const out: Change[] = [];
  for (const k of Object.keys(a)) {
    const x = a[k] as T;
    if (!(k in b)) out.push({ area, key: k, what: 'removed', detail: `${area.slice(0, -1)} ${k} removed`, serious: serious(x) });
    else out.push(...changed(k, x, b[k] as T));
  }
  for (const k of Object.keys(b)) if (!(k in a)) out.push({ area, key: k, what: 'added', detail: `${area.slice(0, -1)} ${k} added`, serious: serious(b[k] as T) });
  return out;
}

export function cardDiff(a: Capability, b: Capability): Change[] {
  const out: Change[] = [];
  for (const field of ['id', 'intent', 'surface', 'entry'] as const) {
    if (a[field] !== b[field]) out.push({ area: 'card', key: field, what: 'changed', detail: `${field}: ${json(a[field])} → ${json(b[field])}`, serious: field === 'surface' || field === 'entry' });
  }
  out.push(
    ...keyed('inputs', a.inputs, b.inputs, (k, x, y) => {
      if (same(x, y)) return [];
      const serious = Boolean(x.secret) !== Boolean(y.secret);
      return [{ area: 'inputs', key: k, what: 'changed', detail: `input ${k}: ${json(x)} → ${json(y)}`, serious }];
    }, (v) => Boolean(v.secret)),
  );
  out.push(...keyed('outputs', a.outputs, b.outputs, (k, x, y) => (same(x, y) ? [] : [{ area: 'outputs', key: k, what: 'changed', detail: `output ${k}: ${json(x)} → ${json(y)}`, serious: false }])));
  out.push(
    ...keyed('screens', a.screens, b.screens, (k, x, y) => {
      const c: Change[] = [];
      if (x.title !== y.title) c.push({ area: 'screens', key: k, what: 'changed', detail: `screen ${k} title: ${json(x.title)} → ${json(y.title)}`, serious: false });
      if (x.signature !== y.signature) {
        const gone = x.paths.filter((p) => !y.paths.includes(p));
        const come = y.paths.filter((p) => !x.paths.includes(p));
        c.push({ area: 'screens', key: k, what: 'changed', detail: `screen ${k} furniture: ${[...gone.map((p) => `- ${p}`), ...come.map((p) => `+ ${p}`)].join('; ') || 'the same paths, another signature'}`, serious: false });
      }
      if (!same(x.marks, y.marks)) c.push({ area: 'screens', key: k, what: 'changed', detail: `screen ${k} marks: ${json(x.marks ?? null)} → ${json(y.marks ?? null)}`, serious: true });
      return c;
    }),
  );
  out.push(
    ...keyed('targets', a.targets, b.targets, (k, x, y) => {
      const c: Change[] = [];
      for (const f of ['role', 'name', 'hint', 'scope', 'supports', 'fingerprint'] as const) {
        if (!same(x[f], y[f])) c.push({ area: 'targets', key: k, what: 'changed', detail: `target ${k} ${f}: ${json(x[f] ?? null)} → ${json(y[f] ?? null)}`, serious: false });
      }
      const rungs = (t: typeof x): string => t.ladder.map((r) => r.rung + (r.value === undefined ? '' : `=${r.value}`)).join(' > ');
      if (!same(x.ladder, y.ladder)) c.push({ area: 'targets', key: k, what: 'changed', detail: `target ${k} ladder: ${rungs(x)} → ${rungs(y)}`, serious: false });
      return c;
    }),
  );
  const stepsA = Object.fromEntries(a.steps.map((s) => [s.id, s]));
  const stepsB = Object.fromEntries(b.steps.map((s) => [s.id, s]));
  out.push(
    ...keyed('steps', stepsA, stepsB, (k, x, y) => {
      const c: Change[] = [];
      if (x.effect.kind !== y.effect.kind) c.push({ area: 'steps', key: k, what: 'changed', detail: `step ${k} effect: ${x.effect.kind} → ${y.effect.kind}`, serious: x.effect.kind === 'commit' || y.effect.kind === 'commit' });
      for (const f of ['screen', 'target', 'op', 'settle', 'expect', 'post'] as const) {
        if (!same(x[f], y[f])) c.push({ area: 'steps', key: k, what: 'changed', detail: `step ${k} ${f}: ${json(x[f] ?? null)} → ${json(y[f] ?? null)}`, serious: f === 'post' });
      }
      return c;
    }, (s) => s.effect.kind === 'commit'),
  );
  const order = (c: Capability): string[] => c.steps.map((s) => s.id);
  const common = order(a).filter((id) => id in stepsB);
  const commonB = order(b).filter((id) => id in stepsA);
  if (!same(common, commonB)) out.push({ area: 'steps', key: '(order)', what: 'changed', detail: `step order: ${common.join(', ')} → ${commonB.join(', ')}`, serious: true });
  if (!same(a.outcomes, b.outcomes)) out.push({ area: 'outcomes', key: '(all)', what: 'changed', detail: `outcomes: ${json(a.outcomes)} → ${json(b.outcomes)}`, serious: true });
  if (a.lifecycle.state !== b.lifecycle.state) out.push({ area: 'lifecycle', key: 'state', what: 'changed', detail: `lifecycle: ${a.lifecycle.state} → ${b.lifecycle.state}`, serious: false });
  return out;
}

/** The diff as a reviewer reads it: serious changes first, marked `!`, then the hashes. */
export function diffText(a: Capability, b: Capability, changes: readonly Change[]): string {
  const lines = [...changes].sort((x, y) => Number(y.serious) - Number(x.serious)).map((c) => `${c.serious ? '!' : ' '} ${c.detail}`);
  const head = `${a.id} (${contentHash(a)}) → ${b.id} (${contentHash(b)})`;
  return changes.length ? [head, ...lines].join('\n') : `${head}\nno change a reviewer would see`;
}
