// The figures of issue 38's table, each with its target and whether this run met it: the one summary `npm run bench`
// ends with. Every value is a ratio or a count measured in this run against its own baseline; a figure whose bench did
// not run (or could not) says so instead of passing.
import { loadavg } from 'node:os';

export interface Figure {
  /** The figure as the table names it. */
  name: string;
  /** What this run measured, as printed. */
  value: string;
  /** The target, as printed. */
  target: string;
  /** Met, not met, or not measured in this run (null). */
  met: boolean | null;
}

/** A figure that is met when every measured value is at most its limit (`values[i] ≤ limits[i]`). */
export function atMost(name: string, values: readonly (number | undefined)[], limits: readonly number[], digits = 2, unit = ''): Figure {
  const shown = (x: number): string => `${x.toFixed(digits)}${unit}`;
  const measured = values.every((v) => v !== undefined && Number.isFinite(v));
  return {
    name,
    value: measured ? values.map((v) => shown(v as number)).join(' / ') : 'not measured',
    target: limits.map((l) => `≤ ${shown(l)}`).join(' / '),
    met: measured ? values.every((v, i) => (v as number) <= (limits[i] ?? -Infinity)) : null,
  };
}

/** The summary table: one row per figure, then the date and the machine's load (the context every ratio needs). */
export function describeFigures(figures: readonly Figure[], at = new Date(), load: readonly number[] = loadavg()): string {
  const word = (f: Figure): string => (f.met === null ? 'not measured' : f.met ? 'met' : 'NOT MET');
  const rows = figures.map((f) => [f.name, f.value, f.target, word(f)]);
  const head = ['figure', 'this run', 'target', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  const met = figures.filter((f) => f.met === true).length;
  return [
    `summary (issue 38), ${at.toISOString().slice(0, 16).replace('T', ' ')} UTC, load average ${load.map((l) => l.toFixed(1)).join(' / ')}:`,
    line(head),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...rows.map(line),
    `${met} of ${figures.length} figures met`,
    '',
  ].join('\n');
}
