// The compact form one document's observation crosses from the page to the runner in (docs/design/walker.md, "The
// walker", "The wire form"). Controls repeat their scope chains, ancestor lists and strings (row keys, roles, verbs,
// the same link text): here each distinct string, string list and scope chain is sent once in a table and a control
// is a row of indices into them. runner/browser/wire.ts expands it into the very DocumentObservation `observe()`
// returns. This module is bundled into pages: it imports types only.
import type { Control } from '../schema/observation.ts';
import type { DocumentObservation } from './api.ts';

/** Names the form, so a runner never expands a form it does not know (a page keeps the walker another build installed). */
export const WIRE_VERSION = 'handrail-wire/2';

/**
 * How each field of a control crosses. `ref`: the observation numbers its controls `c0`, `c1`, … in order, so a ref
 * that is its own index crosses as -1, any other as a string; `string`: an index into `strings`; `list`: an index
 * into `lists`; `scope`: an index into `scopes`; `flag`: the boolean itself. Every field of Control has a kind: a new
 * field does not compile until it says how it travels.
 */
export const FIELD_KIND = {
  ref: 'ref',
  role: 'string',
  name: 'string',
  hint: 'string',
  verbs: 'list',
  scope: 'scope',
  ancestors: 'list',
  value: 'string',
  options: 'list',
  disabled: 'flag',
  secret: 'flag',
  expanded: 'flag',
  selected: 'flag',
  offers: 'list',
} as const satisfies Record<keyof Control, 'ref' | 'string' | 'list' | 'scope' | 'flag'>;

export type WireField = keyof typeof FIELD_KIND;

/** Each field's kind and its slot (its place in FIELD_KIND), read with one Map lookup per field of a control. */
const FIELDS = Object.keys(FIELD_KIND) as WireField[];
const FIELD_INFO = new Map<string, { kind: (typeof FIELD_KIND)[WireField]; slot: number }>(
  FIELDS.map((f, slot) => [f, { kind: FIELD_KIND[f], slot }]),
);

/** One control: the index of its shape (its field names in order), then one value per field, as FIELD_KIND says. */
export type WireControl = Array<number | boolean>;

export interface Wire {
  wire: typeof WIRE_VERSION;
  url: string;
  title: string;
  /** Every distinct string a control holds (role, name, hint, value, a scope link's role and name, a list's item). */
  strings: string[];
  /** Distinct string lists (verbs, ancestors, options, offers), each as indices into `strings`. */
  lists: number[][];
  /** Distinct scope chains, each flat as [role, name, role, name, …] indices into `strings`. */
  scopes: number[][];
  /** Distinct shapes: a control's field names in the order its object has them (JSON keeps that order). */
  shapes: WireField[][];
  controls: WireControl[];
  paths: string[];
  text: string;
  /** What the live regions say, as the observation has it (absent: silence). */
  said?: string[];
  /**
   * The rows, flat as [key, text, key, text, …] indices into `strings`, a text equal to its key as -1 (a layout row's
   * one cell): most keys are in the table already as controls' row scopes (absent: none).
   */
  rows?: number[];
  busy: boolean;
  moving?: true;
}

/**
 * A table of distinct rows and the index of each by a key that names exactly one row. Plain functions over a Map,
 * with no closure made per lookup: this runs for every field of every control.
 */
interface Interned<T> {
  rows: T[];
  at: Map<string, number>;
}

function find(t: Interned<unknown>, key: string): number | undefined {
  return t.at.get(key);
}

function add<T>(t: Interned<T>, key: string, row: T): number {
  t.at.set(key, t.rows.length);
  return t.rows.push(row) - 1;
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameSlots(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameScope(a: Control['scope'], b: Control['scope']): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.role !== b[i]!.role || a[i]!.name !== b[i]!.name) return false;
  return true;
}

/**
 * The wire form of an observation. A field holding `undefined` is left out, as JSON.stringify leaves it out. A list's
 * or a chain's key is its JSON text, which names exactly one value, and is asked for once per control: the indices
 * are built only for a value not seen before.
 */
export function toWire(obs: DocumentObservation): Wire {
  const wire: Wire = {
    wire: WIRE_VERSION,
    url: obs.url,
    title: obs.title,
    strings: [],
    lists: [],
    scopes: [],
    shapes: [],
    controls: [],
    paths: obs.paths,
    text: obs.text,
    ...(obs.said ? { said: obs.said } : {}),
    busy: obs.busy,
    ...(obs.moving ? { moving: true as const } : {}),
  };
  const strings: Interned<string> = { rows: wire.strings, at: new Map() };
  const string = (s: string): number => find(strings, s) ?? add(strings, s, s);
  const lists: Interned<number[]> = { rows: wire.lists, at: new Map() };
  const scopes: Interned<number[]> = { rows: wire.scopes, at: new Map() };
  const shapes: Interned<WireField[]> = { rows: wire.shapes, at: new Map() };
  // Neighbouring controls mostly share a row, a role, a name, so a value is first compared with the previous control's
  // value of the same field (kept per field's slot): only a different one is looked up (a list or chain by its JSON
  // text). A control's shape is its fields' slots in order, compared with the previous control's before its name list
  // is joined and looked up.
  const lastValue: unknown[] = [];
  const lastIndex: number[] = [];
  let lastSlots: number[] = [];
  let lastShape = 0;
  const obsControls = obs.controls;
  for (let n = 0; n < obsControls.length; n++) {
    const c = obsControls[n]!;
    const row: WireControl = [0];
    const slots: number[] = [];
    for (const field in c) {
      const v: unknown = c[field as WireField];
      if (v === undefined) continue;
      const info = FIELD_INFO.get(field);
      if (!info) {
        // A bug: Control has a field FIELD_KIND does not list (the type check makes this unreachable).
        throw new Error(`the wire form has no kind for a control's field ${JSON.stringify(field)}`);
      }
      const slot = info.slot;
      slots.push(slot);
      switch (info.kind) {
        case 'ref':
          row.push(v === `c${n}` ? -1 : string(v as string));
          break;
        case 'string': {
          if (lastValue[slot] === v) row.push(lastIndex[slot]!);
          else {
            const index = string(v as string);
            lastValue[slot] = v;
            lastIndex[slot] = index;
            row.push(index);
          }
          break;
        }
        case 'list':
        case 'scope': {
          const seen = lastValue[slot] as readonly unknown[] | undefined;
          const list = v as readonly string[] | Control['scope'];
          let index: number;
          if (seen && (info.kind === 'list' ? sameStrings(seen as readonly string[], list as readonly string[]) : sameScope(seen as Control['scope'], list as Control['scope']))) index = lastIndex[slot]!;
          else {
            // Keyed by its strings' indices: a list seen before has all its strings in the table already, so asking
            // for them adds none, and a new one adds them in the order its row would (the same tables as before).
            const row = info.kind === 'list' ? (list as readonly string[]).map(string) : (list as Control['scope']).flatMap((l) => [string(l.role), string(l.name)]);
            const key = row.join(',');
            if (info.kind === 'list') index = find(lists, key) ?? add(lists, key, row);
            else index = find(scopes, key) ?? add(scopes, key, row);
            lastValue[slot] = list;
            lastIndex[slot] = index;
          }
          row.push(index);
          break;
        }
        case 'flag':
          row.push(v as boolean);
          break;
      }
    }
    if (!sameSlots(slots, lastSlots)) {
      const fields = slots.map((k) => FIELDS[k]!).join(',');
      lastShape = find(shapes, fields) ?? add(shapes, fields, fields.split(',') as WireField[]);
      lastSlots = slots;
    }
    row[0] = lastShape;
    wire.controls.push(row);
  }
  if (obs.rows) {
    const rows: number[] = [];
    for (const r of obs.rows) rows.push(string(r.key), r.text === r.key ? -1 : string(r.text));
    // Set after the controls so the wire's keys keep the observation's order once expanded (runner/browser/wire.ts).
    wire.rows = rows;
  }
  return wire;
}
