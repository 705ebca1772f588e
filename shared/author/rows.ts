// Rows the model may read while authoring (docs/design/authoring.md, "Authoring rows"): the tables and grids a screen
// shows, found from its furniture and read by the surface's own `read_rows` (shared/dom/rows.ts in the browser),
// so what the model is offered is exactly what replay will read. A table with a name of its own is offered by that
// name; one without (PLUMBLINE's shares) through its first column header, the way a card targets it; a list without
// a name by the named container that makes it the only unnamed list there.
import { SCOPE_LINK_OF } from '../dom/scopes.ts';
import { ROWS_ROLES } from '../schema/capability.ts';
import type { Control, Observation, ScopeLink } from '../schema/observation.ts';
import type { BoundTarget, Surface } from '../surface.ts';

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
  /** The element, when finding the place already found it (an unnamed list in its frame): not asked for again. */
  ref?: string;
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

/** Named containers that can scope an unnamed list, by the role a path gives them: every scope link's but a table's. */
const SCOPE_OF: Readonly<Record<string, ScopeLink['role']>> = Object.fromEntries(Object.entries(SCOPE_LINK_OF).filter(([, link]) => link !== 'table'));
/** A path whose role chain passes through a list (`main>list>listitem>button …`; a `tablist>` is no list). */
const LIST_IN_CHAIN = /(?:^|>)list>/;
const CONTAINER_RE = new RegExp(`^(.*?)(${Object.keys(SCOPE_OF).join('|')}) '(.+)'$`);

/**
 * Where an unnamed list may be asked for. A list has no path of its own when it has no name, so the surface is asked
 * for the one list with an empty name in each frame whose paths pass through a list (a list holding only plain text
 * shows no such path and is not offered): one there is offered scoped by its frame; none, and nothing more
 * is asked (one round trip per frame on a screen without such lists, which is most screens: the guard asks this at
 * every look); two or more, and each named container the frame shows is asked in turn, the deepest first, so a list
 * is scoped by the container nearest it. A place with two offers neither.
 */
async function unnamedListPlaces(surface: Surface, obs: Pick<Observation, 'parts'>): Promise<Candidate[]> {
  const out: Candidate[] = [];
  for (const p of obs.parts) {
    // Asked only where the frame's paths show a list at all (a control or a heading inside one): each question is a
    // round trip to the page, and the guard looks after every action, also on pages that flood their own main thread.
    if (!p.paths.some((path) => LIST_IN_CHAIN.test(path))) continue;
    const frames: ScopeLink[] = p.part.map((name) => ({ role: 'frame', name }));
    const part = p.part.join('/');
    const inFrame = await surface.resolve(listTarget(frames)).catch(() => null);
    if (inFrame?.ok) out.push({ role: 'list', name: '', scope: frames, part, ref: inFrame.ref });
    if (!inFrame || inFrame.ok || inFrame.code !== 'AMBIGUOUS') continue;
    const inside: (Candidate & { depth: number })[] = [];
    for (const path of p.paths) {
      const m = CONTAINER_RE.exec(path);
      const role = m?.[2] ? SCOPE_OF[m[2]] : undefined;
      if (m?.[3] && role && !m[3].includes('#')) inside.push({ role: 'list', name: '', scope: [...frames, { role, name: m[3] }], part, depth: (m[1] ?? '').split('>').length });
    }
    out.push(...inside.sort((a, b) => b.depth - a.depth).map(({ depth: _depth, ...c }) => c));
  }
  return out;
}

/** The target `locate` asks for: this role and name in this scope, by its role and name alone. */
function listTarget(scope: ScopeLink[], role = 'list', name = ''): BoundTarget {
  return { id: 'rows', role, name, supports: ['read_rows'], scope, ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'] } };
}

/**
 * The ref of the one element with this role and name in this scope on the live screen, or null (none, or two). A
 * ref is good until the next observation, so the guard finds a source again before it reads it.
 */
export async function locate(surface: Surface, c: Pick<Control, 'role' | 'name' | 'scope'>): Promise<string | null> {
  const hit = await surface.resolve(listTarget(c.scope, c.role, c.name));
  return hit.ok ? hit.ref : null;
}

/**
 * The tables, grids and lists on this screen that read as rows, each once. A candidate that the surface cannot
 * find exactly once, or cannot read (a surface without `read_rows`), is left out: the model is
 * offered nothing it could not replay.
 */
export async function rowSources(surface: Surface, obs: Pick<Observation, 'parts'>): Promise<RowSource[]> {
  const found: (RowSource & { part: string; named: boolean })[] = [];
  const refs = new Set<string>();
  for (const c of [...candidates(obs), ...(await unnamedListPlaces(surface, obs))]) {
    try {
      const ref = c.ref ?? (await locate(surface, c));
      // One element once: an unnamed list found from two places keeps the nearer place's scope.
      if (ref === null || (c.name === '' && refs.has(ref))) continue;
      refs.add(ref);
      const read = await surface.act(ref, { verb: 'read_rows' });
      if (!read.rows) continue;
      const control: Control = { ref, role: c.role, name: c.name, verbs: ['read_rows'], scope: c.scope, ancestors: [] };
      // An unnamed list is one source per place it was found in (its scope), like a named one.
      const where = c.name === '' ? JSON.stringify(c.scope) : '';
      found.push({ id: '', control, headers: read.headers ?? [], rows: read.rows.length, part: c.part + where, named: c.role !== 'columnheader' });
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
      const place = s.control.scope.filter((l) => l.role !== 'frame').at(-1);
      const unnamed = place ? ` (unnamed, in ${place.role} '${place.name}')` : ' (unnamed, the only one here)';
      const named = s.control.role === 'columnheader' ? '' : s.control.name ? ` '${s.control.name}'` : unnamed;
      const cols = s.headers.length ? `columns ${s.headers.map((h) => `'${h}'`).join(', ')}` : 'no headers (use text)';
      return `${s.id}: ${what}${named}, ${cols}; ${s.rows} rows`;
    })
    .join('\n');
}
