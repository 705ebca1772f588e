// Rows the model may read while authoring (docs/ARCHITECTURE.md, "Authoring rows"): the tables and grids a screen
// shows, found from its furniture and read by the surface's own `read_rows` (shared/dom/rows.ts in the browser),
// so what the model is offered is exactly what replay will read. A table with a name of its own is offered by that
// name; one without (PLUMBLINE's shares) through its first column header, the way a card targets it.
import { ROWS_ROLES } from '../schema/capability.ts';
import type { Control, Observation, ScopeLink } from '../schema/observation.ts';
import type { Surface } from '../surface.ts';

/** One table, grid or list on the screen that `read_rows` can read: how to find it, its headers, how many rows now. */
export interface RowSource {
  /** `T1`, `T2`…: what the model names it by, in the order the screen's parts and paths give. */
  id: string;
  /** The element a card's target finds: the named container, or the first header of an unnamed table. */
  control: Control;
  /** The column headers the surface read (none for a list or a table without a header row). */
  headers: string[];
  rows: number;
}

/** A path's last segment naming a column header or a named table/grid/list: `work>table>row>columnheader 'Share ID'`. */
const SOURCE_RE = new RegExp(`(?:^|>)(${ROWS_ROLES.join('|')}) '(.+)'$`);

interface Candidate {
  role: string;
  name: string;
  scope: ScopeLink[];
  part: string;
}

function candidates(obs: Pick<Observation, 'parts'>): Candidate[] {
  const out: Candidate[] = [];
  for (const p of obs.parts) {
    const scope: ScopeLink[] = p.part.map((name) => ({ role: 'frame', name }));
    for (const path of p.paths) {
      const m = SOURCE_RE.exec(path);
      if (m?.[1] && m[2] && !m[2].includes('#')) out.push({ role: m[1], name: m[2], scope, part: p.part.join('/') });
    }
  }
  return out;
}

/**
 * The ref of the one element with this role and name in this scope on the live screen, or null (none, or two). A
 * ref is good until the next observation, so the guard finds a source again before it reads it.
 */
export async function locate(surface: Surface, c: Pick<Control, 'role' | 'name' | 'scope'>): Promise<string | null> {
  const hit = await surface.resolve({
    id: 'rows',
    role: c.role,
    name: c.name,
    supports: ['read_rows'],
    scope: c.scope,
    ladder: [{ rung: 'role_name', cost: 100 }],
    fingerprint: { over: ['role'] },
  });
  return hit.ok ? hit.ref : null;
}

/**
 * The tables, grids and lists on this screen that read as rows, each once. A candidate that the surface cannot
 * find exactly once, or cannot read (a surface without `read_rows`, the extension's), is left out: the model is
 * offered nothing it could not replay.
 */
export async function rowSources(surface: Surface, obs: Pick<Observation, 'parts'>): Promise<RowSource[]> {
  const found: (RowSource & { part: string; named: boolean })[] = [];
  for (const c of candidates(obs)) {
    try {
      const ref = await locate(surface, c);
      if (ref === null) continue;
      const read = await surface.act(ref, { verb: 'read_rows' });
      if (!read.rows) continue;
      const control: Control = { ref, role: c.role, name: c.name, verbs: ['read_rows'], scope: c.scope, ancestors: [] };
      found.push({ id: '', control, headers: read.headers ?? [], rows: read.rows.length, part: c.part, named: c.role !== 'columnheader' });
    } catch {
      continue;
    }
  }
  // The headers of one table come once per header: keep the table once, by its name if it has one, else by the
  // header that comes first in the table.
  const kept = new Map<string, (typeof found)[number]>();
  for (const s of found) {
    const key = s.named ? `${s.part}|${s.control.role}|${s.control.name}` : `${s.part}|${s.headers.join('\u0000')}`;
    const rank = (x: (typeof found)[number]): number => (x.named ? -1 : x.headers.indexOf(x.control.name));
    const have = kept.get(key);
    if (!have || rank(s) < rank(have)) kept.set(key, s);
  }
  // A named table also shows its headers: the unnamed entry for the same headers is the same table.
  const named = new Set([...kept.values()].filter((s) => s.named).map((s) => `${s.part}|${s.headers.join('\u0000')}`));
  return [...kept.values()]
    .filter((s) => s.named || !named.has(`${s.part}|${s.headers.join('\u0000')}`))
    .map((s, i) => ({ id: `T${i + 1}`, control: s.control, headers: s.headers, rows: s.rows }));
}

/** One line per source for the prompt, kept short: the screen text already shows the cells. */
export function renderRowSources(sources: readonly RowSource[]): string {
  return sources
    .map((s) => {
      const what = s.control.role === 'columnheader' ? 'table' : s.control.role;
      const named = s.control.role === 'columnheader' ? '' : ` '${s.control.name}'`;
      const cols = s.headers.length ? `columns ${s.headers.map((h) => `'${h}'`).join(', ')}` : 'no headers (use text)';
      return `${s.id}: ${what}${named}, ${cols}; ${s.rows} rows`;
    })
    .join('\n');
}
