// A control's fingerprint stays the same for the same control and changes when what it is changes.
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../shared/fingerprint.ts';
import { FingerprintField } from '../../shared/schema/capability.ts';
import type { Control } from '../../shared/schema/observation.ts';

const hold: Control = {
  ref: 'work|c7', role: 'link', name: 'Hold', verbs: ['invoke'],
  scope: [{ role: 'frame', name: 'work' }, { role: 'row', name: '400118-S0001' }], ancestors: ['table', 'row'],
};
const ALL = FingerprintField.options;
/** The observer version every fingerprint here is taken under. */
const V = 'handrail-walker/1';

describe('fingerprint', () => {
  it('ignores ref, scope, value and the order of fields asked for', () => {
    const moved = { ...hold, ref: 'work|c2', scope: [{ role: 'row' as const, name: '400118-S0005' }], value: 'x' };
    expect(fingerprint(moved, ALL, V)).toBe(fingerprint(hold, ALL, V));
    expect(fingerprint(hold, ['name', 'role'], V)).toBe(fingerprint(hold, ['role', 'name', 'role'], V));
    expect(fingerprint(hold, ALL, V)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with each field it covers, and not with fields it leaves out', () => {
    const base = fingerprint(hold, ALL, V);
    expect(fingerprint({ ...hold, role: 'button' }, ALL, V)).not.toBe(base);
    expect(fingerprint({ ...hold, name: 'Release' }, ALL, V)).not.toBe(base);
    expect(fingerprint({ ...hold, verbs: ['invoke', 'read'] }, ALL, V)).not.toBe(base);
    expect(fingerprint({ ...hold, ancestors: ['list'] }, ALL, V)).not.toBe(base);
    const noName: FingerprintField[] = ['role', 'supports', 'ancestor_roles'];
    expect(fingerprint({ ...hold, name: '400337' }, noName, V)).toBe(fingerprint(hold, noName, V));
  });

  it('knows an unnamed field by its visual label, distinct from a name with the same text', () => {
    const field: Control = { ...hold, role: 'textbox', name: '', hint: 'Operator ID', verbs: ['set_value', 'read'] };
    expect(fingerprint(field, ALL, V)).not.toBe(fingerprint({ ...field, hint: 'Password' }, ALL, V));
    expect(fingerprint(field, ALL, V)).not.toBe(fingerprint({ ...field, name: 'Operator ID' }, ALL, V));
  });

  it('changes with the walker version', () => {
    expect(fingerprint(hold, ALL, 'handrail-walker/0')).not.toBe(fingerprint(hold, ALL, V));
  });
});
