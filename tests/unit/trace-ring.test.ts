// The worker's trace ring (extension/lib/trace-ring.ts): bounded, newest last, each entry stamped.
import { afterEach, describe, expect, it } from 'vitest';
import { trace } from '../../extension/lib/trace-ring.ts';

type Traced = typeof globalThis & { __handrailTrace?: string[] };

afterEach(() => {
  delete (globalThis as Traced).__handrailTrace;
});

describe('the trace ring', () => {
  it('keeps the last 400 entries, oldest dropped first, each with a time of day', () => {
    for (let i = 0; i < 450; i++) trace(`entry ${i}`);
    const ring = (globalThis as Traced).__handrailTrace ?? [];
    expect(ring).toHaveLength(400);
    expect(ring[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} entry 50$/);
    expect(ring.at(-1)).toMatch(/ entry 449$/);
  });
});
