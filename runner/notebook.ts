// The notebook: `runs.db` under the state directory (SQLite through better-sqlite3, embedded, one file). Every run
// is a row (card, content hash, word, code, duration, the rung each target resolved on against its first choice),
// and every referee verdict is a row, settled as held or not when its run ends — held when the run it steered ended
// SUCCESS or BUSINESS_OUTCOME. Two readings come out of it: the referee's calibration by confidence
// (`handrail referee calibration`) and drift — targets whose resolving rung moved off their first choice, the early
// warning that an application changed (`handrail drift <card>`, and a warning before a run spends anything).
// docs/design/escalation.md, "The escalation ladder".
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { contentHash } from './approval.ts';
import { LOG_FILE } from './evidence.ts';
import type { Capability } from '../shared/schema/capability.ts';
import type { RunResult } from '../shared/schema/result.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  run_id TEXT PRIMARY KEY, card TEXT NOT NULL, card_hash TEXT NOT NULL, word TEXT NOT NULL, code TEXT NOT NULL,
  duration_ms INTEGER NOT NULL, at TEXT NOT NULL, evidence TEXT
);
CREATE INDEX IF NOT EXISTS runs_by_card ON runs (card, at);
CREATE TABLE IF NOT EXISTS rungs (
  run_id TEXT NOT NULL REFERENCES runs (run_id), target TEXT NOT NULL, rung TEXT NOT NULL, first_choice TEXT NOT NULL,
  PRIMARY KEY (run_id, target)
);
CREATE TABLE IF NOT EXISTS verdicts (
  id INTEGER PRIMARY KEY, run_id TEXT NOT NULL REFERENCES runs (run_id), step TEXT, screen TEXT, backend TEXT NOT NULL,
  option TEXT NOT NULL, confidence REAL NOT NULL, judgement TEXT NOT NULL, held INTEGER
);
`;

/** The confidence bins calibration is reported in. */
export const BINS: readonly [number, number][] = [
  [0, 0.5],
  [0.5, 0.8],
  [0.8, 0.9],
  [0.9, 0.95],
  [0.95, 1.0000001],
];

export interface CalibrationBin {
  from: number;
  to: number;
  verdicts: number;
  held: number;
  /** held / verdicts, or null for an empty bin. */
  rate: number | null;
}

export interface TargetDrift {
  target: string;
  first_choice: string;
  runs: number;
  /** Runs in which the target resolved on another rung than its first choice. */
  off_first: number;
  /** The rung of the latest run. */
  latest: string;
}

interface RefereeLine {
  step?: string;
  backend: string;
  probabilities: Record<string, number>;
  judgement: { kind: string; label?: string; best?: string; confidence?: number };
}

export class Notebook {
  readonly #db: Database.Database;

  private constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Opens (and creates) `runs.db` in `home`; `:memory:` for tests. Many processes may write: WAL and a busy timeout. */
  static open(home: string): Notebook {
    const db = new Database(home === ':memory:' ? home : join(home, 'runs.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
    return new Notebook(db);
  }

  close(): void {
    this.#db.close();
  }

  /**
   * Records one finished run: its row, the rung each target resolved on, and the referee verdicts its evidence log
   * holds, settled now that the run's word is known. A run answered from the journal did nothing and is not a row.
   */
  async record(card: Capability, result: RunResult, at = new Date()): Promise<void> {
    if (result.from_journal) return;
    const verdicts = result.evidence ? await refereeLines(result.evidence) : [];
    const held = result.word === 'SUCCESS' || result.word === 'BUSINESS_OUTCOME' ? 1 : 0;
    const write = this.#db.transaction(() => {
      this.#db
        .prepare('INSERT OR REPLACE INTO runs (run_id, card, card_hash, word, code, duration_ms, at, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(result.run_id, card.id, contentHash(card), result.word, result.code, Math.round(result.duration_ms), at.toISOString(), result.evidence);
      const rung = this.#db.prepare('INSERT OR REPLACE INTO rungs (run_id, target, rung, first_choice) VALUES (?, ?, ?, ?)');
      for (const [target, used] of Object.entries(result.rungs)) {
        const first = card.targets[target]?.ladder[0]?.rung;
        if (first) rung.run(result.run_id, target, used, first);
      }
      const verdict = this.#db.prepare('INSERT INTO verdicts (run_id, step, screen, backend, option, confidence, judgement, held) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (const v of verdicts) {
        const [option, confidence] = topOf(v.probabilities);
        verdict.run(result.run_id, v.step ?? null, null, v.backend, option, confidence, v.judgement.kind, held);
      }
    });
    write();
  }

  /** The referee's verdicts by confidence bin: how often a verdict that sure was borne out by its run. */
  calibration(backend?: string): CalibrationBin[] {
    const rows = this.#db
      .prepare(`SELECT confidence, held FROM verdicts WHERE held IS NOT NULL ${backend ? 'AND backend = ?' : ''}`)
      .all(...(backend ? [backend] : [])) as { confidence: number; held: number }[];
    return BINS.map(([from, to]) => {
      const inBin = rows.filter((r) => r.confidence >= from && r.confidence < to);
      const held = inBin.filter((r) => r.held === 1).length;
      return { from, to: Math.min(1, to), verdicts: inBin.length, held, rate: inBin.length ? held / inBin.length : null };
    });
  }

  /** Per target of a card, over its last `window` runs: how often it resolved off its first-choice rung. */
  drift(card: string, window = 20): TargetDrift[] {
    const runs = this.#db.prepare('SELECT run_id FROM runs WHERE card = ? ORDER BY at DESC, rowid DESC LIMIT ?').all(card, window) as { run_id: string }[];
    if (!runs.length) return [];
    const ids = runs.map((r) => r.run_id);
    const rows = this.#db
      .prepare(`SELECT r.run_id, r.target, r.rung, r.first_choice FROM rungs r WHERE r.run_id IN (${ids.map(() => '?').join(',')})`)
      .all(...ids) as { run_id: string; target: string; rung: string; first_choice: string }[];
    const order = new Map(ids.map((id, i) => [id, i]));
    const byTarget = new Map<string, typeof rows>();
    for (const r of rows) byTarget.set(r.target, [...(byTarget.get(r.target) ?? []), r]);
    return [...byTarget.entries()]
      .map(([target, rs]) => {
        const latest = [...rs].sort((a, b) => (order.get(a.run_id) ?? 0) - (order.get(b.run_id) ?? 0))[0];
        return {
          target,
          first_choice: rs[0]?.first_choice ?? '',
          runs: rs.length,
          off_first: rs.filter((r) => r.rung !== r.first_choice).length,
          latest: latest?.rung ?? '',
        };
      })
      .sort((a, b) => b.off_first - a.off_first || a.target.localeCompare(b.target));
  }

  /** The words of a card's latest runs, newest first. */
  lastWords(card: string, n = 5): string[] {
    return (this.#db.prepare('SELECT word FROM runs WHERE card = ? ORDER BY at DESC, rowid DESC LIMIT ?').all(card, n) as { word: string }[]).map((r) => r.word);
  }

  /** Targets whose latest run resolved off their first choice: what preflight warns about before a run spends. */
  drifting(card: string): TargetDrift[] {
    return this.drift(card, 5).filter((t) => t.latest !== t.first_choice);
  }
}

function topOf(p: Record<string, number>): [string, number] {
  let best: [string, number] = ['', 0];
  for (const [k, v] of Object.entries(p)) if (v > best[1]) best = [k, v];
  return best;
}

async function refereeLines(dir: string): Promise<RefereeLine[]> {
  let text: string;
  try {
    text = await readFile(join(dir, LOG_FILE), 'utf8');
  } catch {
    return [];
  }
  const out: RefereeLine[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"kind":"referee"')) continue;
    try {
      const parsed = JSON.parse(line) as { kind?: string; data?: RefereeLine };
      if (parsed.kind === 'referee' && parsed.data) out.push(parsed.data);
    } catch {
      // A torn line is the evidence verifier's business; the notebook records what it can read.
    }
  }
  return out;
}

/** The calibration table as text, for `handrail referee calibration`. */
export function calibrationText(bins: readonly CalibrationBin[]): string {
  const rows = bins.map((b) => `${b.from.toFixed(2)} to ${b.to.toFixed(2)}\t${b.verdicts}\t${b.held}\t${b.rate === null ? '-' : b.rate.toFixed(2)}`);
  return ['confidence\tverdicts\theld\trate', ...rows].join('\n');
}

/** The drift table as text, for `handrail drift <card>`. */
export function driftText(card: string, rows: readonly TargetDrift[]): string {
  if (!rows.length) return `${card}: no runs recorded yet`;
  return [
    `${card}: rung per target over the latest runs (first choice → latest)`,
    ...rows.map((r) => `${r.off_first ? '!' : ' '} ${r.target}: ${r.first_choice} → ${r.latest} · off first choice in ${r.off_first} of ${r.runs}`),
  ].join('\n');
}
