// `npm run bench` ends with issue 38's figures, each with its target and met / not met; a figure not measured never passes.
import { describe, expect, it } from 'vitest';
import { atMost, describeFigures } from '../bench/figures.ts';

describe('the bench summary (tests/bench/figures.ts)', () => {
  it('says met only when every value is within its limit', () => {
    expect(atMost('replay', [1.1, 1.02], [1.15, 1.15]).met).toBe(true);
    expect(atMost('replay', [1.54, 1.02], [1.15, 1.15]).met).toBe(false);
    expect(atMost('mcp', [50, 151], [50, 150], 0, ' ms')).toEqual({ name: 'mcp', value: '50 ms / 151 ms', target: '≤ 50 ms / ≤ 150 ms', met: false });
  });

  it('says not measured for a figure whose bench gave nothing, and never counts it met', () => {
    const f = atMost('cpu', [undefined], [1.2]);
    expect(f).toMatchObject({ value: 'not measured', met: null });
    const table = describeFigures([f, atMost('walker', [0.05], [0.07], 3)], new Date('2026-12-07T13:30:00Z'), [3, 2, 1]);
    expect(table).toContain('2026-12-07 13:30 UTC, load average 3.0 / 2.0 / 1.0');
    expect(table).toMatch(/\| cpu +\| not measured \| ≤ 1\.20 +\| not measured \|/);
    expect(table).toMatch(/\| walker +\| 0\.050 +\| ≤ 0\.070 \| met +\|/);
    expect(table).toContain('1 of 2 figures met');
  });
});
