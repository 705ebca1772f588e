// Reading an observation in browser specs: its controls, and the one control of a role and name.
import type { Control, Observation } from '../../../shared/schema/observation.ts';

/** Every control of every part, in order. */
export const controls = (o: Observation): Control[] => o.parts.flatMap((p) => p.controls);

/** The one control of `role` named `name`; anything else throws, listing what the page offers. */
export function one(o: Observation, role: string, name: string): Control {
  const hits = controls(o).filter((c) => c.role === role && c.name === name);
  if (hits.length !== 1) throw new Error(`${hits.length} ${role} '${name}' on the page: ${controls(o).map((c) => `${c.role} '${c.name}'`).join(', ')}`);
  return hits[0] as Control;
}
