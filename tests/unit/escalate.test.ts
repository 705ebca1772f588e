// The escalation ladder's pure parts (docs/ARCHITECTURE.md, "The escalation ladder"): the decision of what to ask
// next as a table, the referee's acceptance bar and furniture re-check, and the local referee over the real card's
// screens with PLUMBLINE's drift switches applied to the stored furniture.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextRung, type Attempt, type LadderFacts } from '../../runner/escalate/decide.ts';
import { fitOf, LocalReferee } from '../../runner/escalate/local.ts';
import { judge, NONE, type RefereeQuestion, type ScreenOption } from '../../runner/escalate/referee.ts';
import { Capability } from '../../shared/schema/capability.ts';

const facts = (f: Partial<LadderFacts>): LadderFacts => ({
  screen: 'S1',
  onCall: ['referee', 'scout', 'person'],
  attempts: [],
  elapsedMs: 0,
  ceilingMs: 60_000,
  commitInFlight: false,
  ...f,
});
const tried = (...a: [Attempt['rung'], Attempt['outcome'], string?][]): Attempt[] => a.map(([rung, outcome, screen]) => ({ rung, outcome, screen: screen ?? 'S1' }));

describe('what to ask next: a pure function of the recorded facts', () => {
  it.each([
    ['nothing tried: the cheapest rung', facts({}), { ask: 'referee' }],
    ['the referee said none of these: the scout', facts({ attempts: tried(['referee', 'none']) }), { ask: 'scout' }],
    ['the referee could not answer: climb past it', facts({ attempts: tried(['referee', 'unavailable']) }), { ask: 'scout' }],
    ['referee and scout spent: the person', facts({ attempts: tried(['referee', 'unsure'], ['scout', 'refused']) }), { ask: 'person' }],
    ['every rung spent on this screen', facts({ attempts: tried(['referee', 'none'], ['scout', 'none'], ['person', 'mismatch']) }), { stop: 'exhausted' }],
    ['each rung once per screen: another screen starts the climb again', facts({ screen: 'S2', attempts: tried(['referee', 'named'], ['scout', 'named']) }), { ask: 'referee' }],
    ['a rung not on call is skipped', facts({ onCall: ['person'] }), { ask: 'person' }],
    ['no rung on call', facts({ onCall: [] }), { stop: 'none_on_call' }],
    ['the ceiling is reached', facts({ elapsedMs: 60_000 }), { stop: 'ceiling' }],
    ['a commit in flight: the scout is still asked (seated look-only by the engine)', facts({ commitInFlight: true, attempts: tried(['referee', 'none']) }), { ask: 'scout' }],
    ['a person ended the run', facts({ attempts: tried(['person', 'aborted', 'S0']) }), { stop: 'aborted' }],
    ['the screen was named: nothing more to ask', facts({ attempts: tried(['referee', 'named']) }), { stop: 'named' }],
  ] as const)('%s', (_, f, want) => {
    expect(nextRung(f)).toEqual(want);
    // Recomputable: the same facts, the same decision.
    expect(nextRung(structuredClone(f))).toEqual(want);
  });
});

const card = Capability.parse(JSON.parse(readFileSync(new URL('../../capabilities/plumbline-place-hold.json', import.meta.url), 'utf8')));
const options: ScreenOption[] = ['hold_review', 'hold_result', 'hold_refused'].map((label) => {
  const s = card.screens[label];
  if (!s) throw new Error(`the card has no ${label}`);
  return { label, title: s.title, paths: s.paths, marks: s.marks };
});
const result = options[1] as ScreenOption;
const posted = result.paths.find((p) => p.includes('HOLD POSTED')) as string;
const page = (paths: readonly string[], text = ''): RefereeQuestion => ({ options, page: { paths, text } });

describe("the referee's verdict is judged, never taken on its word", () => {
  const q = page(result.paths);
  it('accepts a sure verdict clearly ahead that the furniture bears out', () => {
    expect(judge({ backend: 't', probabilities: { hold_result: 0.9, [NONE]: 0.1 } }, q)).toMatchObject({ kind: 'named', label: 'hold_result', overlap: 1 });
  });
  it('is unsure below 0.80, or within 0.20 of the next option', () => {
    expect(judge({ backend: 't', probabilities: { hold_result: 0.79, [NONE]: 0.21 } }, q)).toMatchObject({ kind: 'unsure' });
    expect(judge({ backend: 't', probabilities: { hold_result: 0.81, hold_refused: 0.7 } }, q)).toMatchObject({ kind: 'unsure' });
  });
  it('refuses a confident wrong verdict the furniture contradicts, even where a frameset shell overlaps by half', () => {
    // The review and result screens share PLUMBLINE's frameset: Jaccard ≥ 0.5, yet the result fits better.
    expect(judge({ backend: 't', probabilities: { hold_review: 0.99, [NONE]: 0.01 } }, page(result.paths))).toMatchObject({ kind: 'refused', label: 'hold_review', better: 'hold_result' });
    // A page steered by its words: the refusal page, called a success.
    const refused = options[2] as ScreenOption;
    expect(judge({ backend: 't', probabilities: { hold_result: 0.97, [NONE]: 0.03 } }, page(refused.paths))).toMatchObject({ kind: 'refused', better: 'hold_refused' });
    // And far below the floor: a sign-on page called a result.
    const signon = card.screens['signon']?.paths ?? [];
    expect(judge({ backend: 't', probabilities: { hold_result: 0.99, [NONE]: 0.01 } }, page(signon))).toMatchObject({ kind: 'refused' });
  });
  it('takes a sure "none of these" as the answer it is, and ignores options nobody asked about', () => {
    expect(judge({ backend: 't', probabilities: { [NONE]: 0.95, signon: 0.99 } }, q)).toMatchObject({ kind: 'none' });
  });
});

describe('the local referee over the card PLUMBLINE replays, with the drift switches', () => {
  const referee = new LocalReferee();
  const verdictOn = async (paths: readonly string[], text: string) => judge(await referee.ask(page(paths, text)), page(paths, text));

  it('names the result page it was recorded on, and the same page under a banner', async () => {
    expect(await verdictOn(result.paths, 'HOLD POSTED CONFIRMATION HX-118204')).toMatchObject({ kind: 'named', label: 'hold_result' });
    expect(await verdictOn([...result.paths, "work>strong 'SYSTEM MAINTENANCE TONIGHT'"], '')).toMatchObject({ kind: 'named', label: 'hold_result' });
  });

  it('says none of these to the reworded result: its furniture is similar but its marks are gone', async () => {
    const reworded = [...result.paths.filter((p) => p !== posted), "work>strong 'HOLD ACCEPTED REF HX-#'"];
    expect(fitOf(result, { paths: reworded, text: '' })).toBeLessThan(0.5);
    expect(await verdictOn(reworded, 'HOLD ACCEPTED REF HX-118204')).toMatchObject({ kind: 'none' });
  });

  it('says none of these to a rewritten page', async () => {
    expect(await verdictOn(["title 'PLUMBLINE - CONFIRMATION'", "heading 'Your hold'", 'table>row>cell'], '')).toMatchObject({ kind: 'none' });
  });

  it('never guesses between two screens with the same furniture and no marks to tell them apart', async () => {
    const twins: ScreenOption[] = [
      { label: 'a', title: 'A', paths: result.paths },
      { label: 'b', title: 'B', paths: result.paths },
    ];
    const q = { options: twins, page: { paths: result.paths, text: '' } };
    expect(judge(await referee.ask(q), q)).toMatchObject({ kind: 'unsure' });
  });

  it('counts its calls, and its probabilities sum to one', async () => {
    const before = referee.calls;
    const v = await referee.ask(page(result.paths));
    expect(referee.calls).toBe(before + 1);
    expect(Object.values(v.probabilities).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });
});
