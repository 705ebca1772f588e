// A control's fingerprint stays the same for the same control and changes when what it is changes.
import { describe, expect, it } from 'vitest';
import { fingerprint, FingerprintField } from '../../shared/fingerprint.ts';
import type { Control } from '../../shared/schema/observation.ts';

const hold: Control = {
  ref: 'work|c7', role: 'link', name: 'Hold', verbs: ['invoke'],
  scope: [{ role: 'frame', name: 'work' }, { role: 'row', name: '400118-S0001' }], ancestors: ['table', 'row'],
};
const ALL = FingerprintField.options;

describe('fingerprint', () => {
  it('ignores ref, scope, value and the order of fields asked for', () => {
    const moved = { ...hold, ref: 'work|c2', scope: [{ role: 'row' as const, name: '400118-S0005' }], value: 'x' };
    expect(fingerprint(moved, ALL)).toBe(fingerprint(hold, ALL));
    expect(fingerprint(hold, ['name', 'role'])).toBe(fingerprint(hold, ['role', 'name', 'role']));
    expect(fingerprint(hold, ALL)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with each field it covers, and not with fields it leaves out', () => {
    const base = fingerprint(hold, ALL);
    expect(fingerprint({ ...hold, role: 'button' }, ALL)).not.toBe(base);
    expect(fingerprint({ ...hold, name: 'Release' }, ALL)).not.toBe(base);
    expect(fingerprint({ ...hold, verbs: ['invoke', 'read'] }, ALL)).not.toBe(base);
    expect(fingerprint({ ...hold, ancestors: ['list'] }, ALL)).not.toBe(base);
    const noName: FingerprintField[] = ['role', 'supports', 'ancestor_roles'];
    expect(fingerprint({ ...hold, name: '400337' }, noName)).toBe(fingerprint(hold, noName));
  });

  it('knows an unnamed field by its visual label, distinct from a name with the same text', () => {
    const field: Control = { ...hold, role: 'textbox', name: '', hint: 'Operator ID', verbs: ['set_value', 'read'] };
    expect(fingerprint(field, ALL)).not.toBe(fingerprint({ ...field, hint: 'Password' }, ALL));
    expect(fingerprint(field, ALL)).not.toBe(fingerprint({ ...field, name: 'Operator ID' }, ALL));
  });

  it('changes with the walker version', () => {
    expect(fingerprint(hold, ALL, 'handrail-walker/0')).not.toBe(fingerprint(hold, ALL));
  });
});
