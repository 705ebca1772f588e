// A control's fingerprint: after a rung finds exactly one element, its role, name, verbs and container roles
// must hash as they did when the step was recorded. The surface's observer version is part of it, so an observer
// (the browser's DOM walker) whose rules changed fails the check loudly instead of matching by accident.
import { hashStrings } from './hash.ts';
import { FingerprintField } from './schema/capability.ts';
import type { Control } from './schema/observation.ts';

function part(c: Pick<Control, 'role' | 'name' | 'hint' | 'verbs' | 'ancestors'>, field: FingerprintField): string {
  switch (field) {
    case 'role':
      return c.role;
    // An unnamed control is known by its visual label; the prefix keeps name 'X' and hint 'X' apart.
    case 'name':
      return c.name ? `name:${c.name}` : `hint:${c.hint ?? ''}`;
    case 'supports':
      return [...c.verbs].sort().join(',');
    case 'ancestor_roles':
      return c.ancestors.join('>');
  }
}

/** Hash of the chosen fields in a fixed order (the order of `over` and duplicates in it do not matter). */
export function fingerprint(
  control: Pick<Control, 'role' | 'name' | 'hint' | 'verbs' | 'ancestors'>,
  over: readonly FingerprintField[],
  /** The observer version of the surface that saw the control (Surface.observer, Observation.observer). */
  observer: string,
): string {
  const fields = FingerprintField.options.filter((f) => over.includes(f));
  return hashStrings([observer, ...fields.map((f) => `${f}=${part(control, f)}`)]);
}
