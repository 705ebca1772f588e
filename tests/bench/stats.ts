// Statistics the benchmarks share.
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The p-th percentile by nearest rank: the one the batch summary prints (runner/batch.ts). */
export { percentile } from '../../runner/batch.ts';
