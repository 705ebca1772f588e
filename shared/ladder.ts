// Walking a target's ladder, the same on every surface: rungs cheapest first; a rung that finds exactly one
// element wins, two or more is ambiguous and stops, none tries the next rung; then the fingerprint check.
// A surface supplies only how one rung is asked in its frame and how a ref maps back to a control.
import type { FindQuery } from './dom/api.ts';
import { isGesture } from './dom/gestures.ts';
import { WALKER_VERSION } from './dom/version.ts';
import { fingerprint } from './fingerprint.ts';
import { framePathOfScope } from './ref.ts';
import type { Control, ScopeLink } from './schema/observation.ts';
import type { BoundTarget, Resolution, RungAttempt } from './surface.ts';

/** Splits a target's scope into the frame path and the links that apply inside that frame. */
export function frameScope(target: Pick<BoundTarget, 'scope'>): { framePath: string[]; inFrame: ScopeLink[] } {
  return {
    framePath: framePathOfScope(target.scope),
    inFrame: target.scope.filter((s) => s.role !== 'frame'),
  };
}

/** The walker query for one rung of a target (shared/dom `find`). */
export function rungQuery(target: BoundTarget, rung: BoundTarget['ladder'][number], inFrame: ScopeLink[]): FindQuery {
  return {
    rung: rung.rung,
    role: target.role,
    scope: inFrame,
    ...(target.name !== undefined ? { name: target.name } : {}),
    ...(rung.rung === 'label' && target.hint !== undefined ? { value: target.hint } : {}),
    ...(rung.value !== undefined ? { value: rung.value } : {}),
    ...(target.supports.includes('hover') ? { reveal: true } : {}),
    // Only a target that takes a gesture is looked for among gesture-offered text (docs/design/walker.md, "The walker").
    ...(target.supports.some(isGesture) ? { gesture: true } : {}),
  };
}

/**
 * Whether a control's scope chain `have` holds every link `want` asks for (a target's scope, a proof's): the same role
 * and name, and, where `want` pins a row's column (`column`), a row keyed by that column. One rule for every surface.
 */
export function inScope(have: readonly ScopeLink[], want: readonly ScopeLink[]): boolean {
  return want.every((w) => have.some((h) => h.role === w.role && h.name === w.name && (w.column === undefined || h.column === w.column)));
}

export interface LadderPorts {
  /** Page-wide refs of every element this rung finds in the target's frame. */
  find(query: FindQuery): Promise<string[]>;
  /** The control behind a ref from the latest observation, or null (a non-control such as a result line). */
  controlOf(ref: string): Control | null;
  /**
   * The surface's observer version, which fingerprints hash (the guard records them with the observation's); default
   * the browser's walker. A surface with its own observer must pass it, or every fingerprint it checks mismatches.
   */
  observer?: string;
}

export async function walkLadder(target: BoundTarget, ports: LadderPorts): Promise<Resolution> {
  const { inFrame } = frameScope(target);
  const attempts: RungAttempt[] = [];
  for (const rung of target.ladder) {
    const refs = await ports.find(rungQuery(target, rung, inFrame));
    attempts.push({ rung: rung.rung, count: refs.length });
    if (refs.length === 0) continue;
    if (refs.length > 1) {
      return { ok: false, code: 'AMBIGUOUS', attempts, detail: `rung ${rung.rung} found ${refs.length} elements, expected exactly one` };
    }
    const ref = refs[0] as string;
    const control = ports.controlOf(ref);
    const fp = target.fingerprint;
    if (fp.value !== undefined && control) {
      const seen = fingerprint(control, fp.over, ports.observer ?? WALKER_VERSION);
      if (seen !== fp.value) {
        return {
          ok: false,
          code: 'FINGERPRINT_MISMATCH',
          attempts,
          detail: `rung ${rung.rung} found one element, but its fingerprint over ${fp.over.join('+')} is ${seen}, recorded ${fp.value}`,
        };
      }
    }
    return { ok: true, ref, rung: rung.rung, control, attempts };
  }
  return { ok: false, code: 'TARGET_NOT_FOUND', attempts, detail: 'no rung found it' };
}
