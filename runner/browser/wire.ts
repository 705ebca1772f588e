// Expanding the walker's wire form (shared/dom/wire.ts) back into the DocumentObservation the page's `observe()`
// returns: the same fields in the same order with the same values, so the observation serializes to the same bytes
// (docs/design/walker.md, "The walker", "The wire form"). The page is not trusted to have sent a well-formed table:
// every index is checked against the table it names, and anything else is a typed error that says where.
import type { DocumentObservation } from '../../shared/dom/api.ts';
import { FIELD_KIND, WIRE_VERSION, type Wire, type WireField } from '../../shared/dom/wire.ts';
import { HandrailError } from '../../shared/errors.ts';
import type { Control, ScopeLink } from '../../shared/schema/observation.ts';

/** The page answered an observe with something that is not the wire form it says it is (a bug, or a page's tampering). */
export class WireError extends HandrailError<'INTERNAL'> {
  override readonly name = 'WireError';
  constructor(what: string) {
    super('INTERNAL', `the walker's observation (${WIRE_VERSION}) is malformed: ${what}`);
  }
}

const fail = (what: string): never => {
  throw new WireError(what);
};

function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) return fail(`${what} is not a list of strings`);
  return v as string[];
}

/** `v` as an index into a table of `size` rows. */
function index(v: unknown, size: number, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= size) return fail(`${what} is ${JSON.stringify(v)}, not an index below ${size}`);
  return v;
}

/** A table whose rows are lists of indices into a table of `size` rows. */
function indexRows(v: unknown, size: number, what: string): number[][] {
  if (!Array.isArray(v)) return fail(`${what} is not a list`);
  return v.map((row: unknown, r) => {
    if (!Array.isArray(row)) return fail(`${what}[${r}] is not a list`);
    return row.map((x: unknown, k) => index(x, size, `${what}[${r}][${k}]`));
  });
}

/** The rows as the page sends them (shared/dom/wire.ts Wire.rows): key and text indices in pairs, -1 for a text that is its key. */
function keyedRows(v: unknown, table: readonly string[]): Array<{ key: string; text: string }> {
  if (!Array.isArray(v) || v.length % 2 !== 0) return fail('rows is not a list of key and text pairs');
  const out: Array<{ key: string; text: string }> = [];
  for (let k = 0; k < v.length; k += 2) {
    const key = table[index(v[k], table.length, `rows[${k}]`)]!;
    out.push({ key, text: v[k + 1] === -1 ? key : table[index(v[k + 1], table.length, `rows[${k + 1}]`)]! });
  }
  return out;
}

function shapes(v: unknown): WireField[][] {
  if (!Array.isArray(v)) return fail('shapes is not a list');
  return v.map((shape: unknown, s) => {
    const fields = strings(shape, `shapes[${s}]`);
    for (const f of fields) if (!Object.hasOwn(FIELD_KIND, f)) fail(`shapes[${s}] names ${JSON.stringify(f)}, which is no field of a control`);
    if (new Set(fields).size !== fields.length) fail(`shapes[${s}] names a field twice`);
    return fields as WireField[];
  });
}

/** The observation a wire form stands for; a WireError naming the first thing that is not as shared/dom/wire.ts writes it. */
export function fromWire(v: unknown): DocumentObservation {
  if (typeof v !== 'object' || v === null || (v as { wire?: unknown }).wire !== WIRE_VERSION) return fail(`it is not marked ${WIRE_VERSION}`);
  const w = v as Record<keyof Wire, unknown>;
  for (const key of ['url', 'title', 'text'] as const) if (typeof w[key] !== 'string') fail(`${key} is not a string`);
  if (typeof w.busy !== 'boolean') fail('busy is not true or false');
  if (w.moving !== undefined && w.moving !== true) fail('moving is neither absent nor true');
  const said = w.said === undefined ? undefined : strings(w.said, 'said');
  const table = strings(w.strings, 'strings');
  const rows = w.rows === undefined ? undefined : keyedRows(w.rows, table);
  const lists = indexRows(w.lists, table.length, 'lists').map((ids) => ids.map((i) => table[i]!));
  const scopes = indexRows(w.scopes, table.length, 'scopes').map((ids, s): ScopeLink[] => {
    if (ids.length % 2 !== 0) fail(`scopes[${s}] is not a list of role and name pairs`);
    const links: ScopeLink[] = [];
    for (let k = 0; k < ids.length; k += 2) links.push({ role: table[ids[k]!]! as ScopeLink['role'], name: table[ids[k + 1]!]! });
    return links;
  });
  const shaped = shapes(w.shapes);
  if (!Array.isArray(w.controls)) return fail('controls is not a list');
  const controls = w.controls.map((row: unknown, n): Control => {
    if (!Array.isArray(row)) return fail(`controls[${n}] is not a list`);
    const fields = shaped[index(row[0], shaped.length, `controls[${n}]'s shape`)]!;
    if (row.length !== fields.length + 1) fail(`controls[${n}] has ${row.length - 1} values for the ${fields.length} fields of its shape`);
    // Fields are set in the shape's order, which is the order the page's object had them.
    const c: Record<string, unknown> = {};
    fields.forEach((field, k) => {
      const x: unknown = row[k + 1];
      const at = `controls[${n}].${field}`;
      switch (FIELD_KIND[field]) {
        case 'ref':
          c[field] = x === -1 ? `c${n}` : table[index(x, table.length, at)];
          break;
        case 'string':
          c[field] = table[index(x, table.length, at)];
          break;
        case 'list':
          // Each control gets its own arrays, as JSON.parse gives it: no two controls share one.
          c[field] = [...lists[index(x, lists.length, at)]!];
          break;
        case 'scope':
          c[field] = scopes[index(x, scopes.length, at)]!.map((l) => ({ role: l.role, name: l.name }));
          break;
        case 'flag':
          if (typeof x !== 'boolean') fail(`${at} is not true or false`);
          c[field] = x;
          break;
      }
    });
    return c as Control;
  });
  return {
    url: w.url as string,
    title: w.title as string,
    controls,
    paths: strings(w.paths, 'paths'),
    text: w.text as string,
    ...(said ? { said } : {}),
    ...(rows ? { rows } : {}),
    busy: w.busy as boolean,
    ...(w.moving === true ? { moving: true as const } : {}),
  };
}
