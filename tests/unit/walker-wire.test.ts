// The walker's compact wire form carries every recorded observation out of the page and back byte for byte, at a third of the size, and a malformed one is refused naming where it is wrong.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromWire, WireError } from '../../runner/browser/wire.ts';
import type { DocumentObservation } from '../../shared/dom/api.ts';
import { toWire, WIRE_VERSION, type Wire } from '../../shared/dom/wire.ts';
import { errorCodeOf } from '../../shared/errors.ts';
import { frameLink, frameObservation, parseRef } from '../../shared/ref.ts';
import type { Observation, Part } from '../../shared/schema/observation.ts';
import { WALKER_GOLDEN_DIR } from '../tools/walker-golden.ts';

/** The document observation the page made for one part of a golden screen: local refs, no frame link in scopes. */
function documentOf(part: Part): DocumentObservation {
  const link = frameLink(part.part).length;
  return {
    url: part.locus['url'] ?? '',
    title: part.locus['title'] ?? '',
    controls: part.controls.map((c) => ({ ...c, ref: parseRef(c.ref)?.local ?? c.ref, scope: c.scope.slice(link) })),
    paths: part.paths,
    text: part.text,
    ...(part.said ? { said: part.said } : {}),
    ...(part.rows ? { rows: part.rows } : {}),
    busy: part.busy === true,
  };
}

/** Every part of every golden observation (tests/fixtures/walker-golden/: fixture pages, PLUMBLINE, CASEDESK, the bench page). */
const documents: Array<{ name: string; part: Part; doc: DocumentObservation }> = readdirSync(WALKER_GOLDEN_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .flatMap((f) => {
    const obs = JSON.parse(readFileSync(join(WALKER_GOLDEN_DIR, f), 'utf8')) as Observation;
    return obs.parts.map((part, i) => ({ name: `${f} part ${i}`, part, doc: documentOf(part) }));
  });

/** What the runner does with the page's answer: parse the JSON that crossed, expand it. */
const roundTrip = (doc: DocumentObservation): DocumentObservation => fromWire(JSON.parse(JSON.stringify(toWire(doc))));

function expectRefused(wire: unknown, where: string): void {
  let thrown: unknown;
  try {
    fromWire(wire);
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(WireError);
  expect(errorCodeOf(thrown)).toBe('INTERNAL');
  expect((thrown as Error).message).toContain(where);
}

describe('the wire form', () => {
  it('expands every golden observation into the same bytes the page made', () => {
    expect(documents.length).toBeGreaterThanOrEqual(30);
    let controls = 0;
    for (const { name, part, doc } of documents) {
      // The reconstruction is the page's own observation: the runner's frameObservation turns it back into the part.
      expect(JSON.stringify(frameObservation(part.part, doc)), name).toBe(JSON.stringify(part));
      expect(JSON.stringify(roundTrip(doc)), name).toBe(JSON.stringify(doc));
      controls += doc.controls.length;
    }
    expect(controls).toBeGreaterThan(500);
  });

  it('sends the bench page at under a third of its JSON, each repeated scope chain and string once', () => {
    const bench = documents.find((d) => d.name.startsWith('fixture-bench.json'));
    expect(bench).toBeDefined();
    const doc = bench!.doc;
    const wire = toWire(doc);
    // The rows' texts are data no table can shorten: the third is of the rest, and each row costs its text once
    // and two indices (its key is a row scope the strings table holds already).
    const { rows, ...rest } = doc;
    const lean = toWire(rest);
    expect(JSON.stringify(lean).length).toBeLessThan(JSON.stringify(rest).length / 3);
    expect(wire.rows?.length).toBe((rows?.length ?? 0) * 2);
    expect(JSON.stringify(wire).length - JSON.stringify(lean).length).toBeLessThan(JSON.stringify(rows).length * 0.75);
    expect(wire.scopes.length).toBeLessThan(doc.controls.length);
    expect(new Set(wire.strings).size).toBe(wire.strings.length);
    expect(wire.controls.every((row) => row[1] === -1)).toBe(true);
  });

  it('gives each control arrays of its own, as JSON.parse does', () => {
    const doc = documents.find((d) => d.name.startsWith('fixture-bench.json'))!.doc;
    const out = roundTrip(doc);
    const [a, b] = [out.controls[8]!, out.controls[9]!];
    expect(a.scope).toEqual(b.scope);
    expect(a.scope).not.toBe(b.scope);
    expect(a.scope[0]).not.toBe(b.scope[0]);
    expect(a.verbs).not.toBe(b.verbs);
    expect(a.ancestors).not.toBe(b.ancestors);
  });

  it('keeps a ref that is not its index, every optional field in its order, and drops a field that holds undefined', () => {
    const doc: DocumentObservation = {
      url: 'http://x.test/',
      title: 'T',
      controls: [
        { ref: 'c0', role: 'textbox', name: '', verbs: ['set_value', 'read'], scope: [], ancestors: [], hint: 'Amount', value: '' },
        {
          ref: 'f7',
          role: 'combobox',
          name: 'Kind',
          verbs: ['choose', 'read'],
          scope: [{ role: 'dialog', name: '' }, { role: 'row', name: 'A, B' }],
          ancestors: ['dialog', 'row'],
          value: 'A',
          options: ['A', 'B'],
          disabled: true,
          secret: false,
          expanded: false,
          selected: true,
          offers: ['double_click'],
        },
        { ref: 'c2', role: 'button', name: 'Go', verbs: ['invoke'], scope: [], ancestors: [], hint: undefined } as unknown as DocumentObservation['controls'][number],
      ],
      paths: ["button 'Go'"],
      text: 'Go',
      busy: true,
    };
    expect(JSON.stringify(roundTrip(doc))).toBe(JSON.stringify(doc));
    expect(Object.keys(roundTrip(doc).controls[2]!)).toEqual(['ref', 'role', 'name', 'verbs', 'scope', 'ancestors']);
  });

  it('refuses what is not the wire form, naming the place', () => {
    const doc = documents.find((d) => d.name.startsWith('fixture-bench.json'))!.doc;
    const good = (): Wire => JSON.parse(JSON.stringify(toWire(doc))) as Wire;
    expectRefused(null, `not marked ${WIRE_VERSION}`);
    expectRefused({ ...good(), wire: 'handrail-wire/0' }, `not marked ${WIRE_VERSION}`);
    expectRefused({ ...good(), text: 3 }, 'text is not a string');
    expectRefused({ ...good(), busy: 'no' }, 'busy is not true or false');
    expectRefused({ ...good(), strings: [1] }, 'strings is not a list of strings');
    expectRefused({ ...good(), scopes: [[0]] }, 'scopes[0] is not a list of role and name pairs');
    expectRefused({ ...good(), lists: [[99999]] }, 'lists[0][0] is 99999, not an index below');
    expectRefused({ ...good(), shapes: [['ref', 'colour']] }, 'shapes[0] names "colour"');
    expectRefused({ ...good(), shapes: [['ref', 'ref']] }, 'shapes[0] names a field twice');
    const short = good();
    short.controls[3] = short.controls[3]!.slice(0, 3);
    expectRefused(short, 'controls[3] has 2 values');
    const far = good();
    far.controls[5]![2] = far.strings.length;
    expectRefused(far, `controls[5].role is ${far.strings.length}, not an index below ${far.strings.length}`);
    const flag = good();
    const flagged = flag.shapes.findIndex((s) => s.includes('selected'));
    const withFlag = flag.controls.findIndex((row) => row[0] === flagged);
    expect(withFlag).toBeGreaterThanOrEqual(0);
    flag.controls[withFlag]![flag.shapes[flagged]!.indexOf('selected') + 1] = 1;
    expectRefused(flag, `controls[${withFlag}].selected is not true or false`);
  });
});
