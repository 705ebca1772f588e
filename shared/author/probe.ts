// The guard's first duty (docs/design/authoring.md, "Authoring" 1): probe every rung on the live screen and keep those that find
// exactly this element. The scope is kept as small as it can be — the frame alone, then the innermost in-frame
// links one by one — so a card does not depend on containers that never told anything apart.
import type { Rung, RungKind, ScopeLink } from '../schema/index.ts';
import type { Control } from '../schema/observation.ts';
import { verbsOf } from '../operations.ts';
import type { BoundTarget, Surface } from '../surface.ts';

/** Rung costs, cheapest first; a CSS rung is always last and dearest (the hand-written card uses the same). */
export const RUNG_COST: Readonly<Record<RungKind, number>> = { role_name: 100, label: 200, text: 300, css: 10_000_000 };

export interface Probed {
  rungs: Rung[];
  /** The scope the kept rungs were probed with (the frame links, then as few in-frame links as needed). */
  scope: ScopeLink[];
}

function candidates(c: Control, css: readonly string[]): Rung[] {
  const out: Rung[] = [];
  // A control with neither name nor hint (an unnamed list) is found by its role alone, only where its scope makes
  // it the one such element: the probe below keeps the rung only if it finds exactly this element.
  if (c.name || !c.hint) out.push({ rung: 'role_name', cost: RUNG_COST.role_name });
  if (c.hint) out.push({ rung: 'label', cost: RUNG_COST.label });
  // A link is read by its text; other controls' text (a button's value) is not text a reader sees as such.
  if (c.role === 'link' && c.name) out.push({ rung: 'text', cost: RUNG_COST.text, value: c.name });
  css.forEach((value, i) => out.push({ rung: 'css', cost: RUNG_COST.css + i, value }));
  return out;
}

export async function probeRungs(surface: Surface, c: Control, css: readonly string[] = []): Promise<Probed> {
  const frame = c.scope.filter((l) => l.role === 'frame');
  const inner = c.scope.filter((l) => l.role !== 'frame');
  const tries = candidates(c, css);
  let cssOnly: Probed | null = null;
  for (let k = 0; k <= inner.length; k++) {
    const scope = [...frame, ...inner.slice(inner.length - k)];
    const kept: Rung[] = [];
    for (const rung of tries) {
      const target: BoundTarget = {
        id: 'probe',
        role: c.role,
        // Every verb it takes, the gestures the page listens for among them: a text item offered for a double-click
        // is found as the walk offers it, as replay will find it (docs/design/walker.md, "The walker").
        supports: verbsOf(c.verbs, c.offers),
        scope,
        ladder: [rung],
        fingerprint: { over: ['role'] },
      };
      if (c.name) target.name = c.name;
      if (c.hint) target.hint = c.hint;
      const found = await surface.resolve(target);
      if (found.ok && found.ref === c.ref) kept.push(rung);
    }
    // Only one css rung is worth keeping: the first that works.
    const firstCss = kept.findIndex((r) => r.rung === 'css');
    const rungs = kept.filter((r, i) => r.rung !== 'css' || i === firstCss).map((r) => (r.rung === 'css' ? { ...r, cost: RUNG_COST.css } : r));
    // A scope where only the dearest rung works is a fallback: a deeper scope may let a cheap rung find it.
    if (rungs.some((r) => r.rung !== 'css')) return { rungs, scope };
    if (rungs.length && !cssOnly) cssOnly = { rungs, scope };
  }
  return cssOnly ?? { rungs: [], scope: c.scope };
}
