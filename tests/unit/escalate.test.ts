// The escalation ladder's pure parts (docs/design/escalation.md, "The escalation ladder"): the decision of what to ask
// next as a table (screen rungs up to the person, and the control rung), the referee's acceptance bar and furniture re-check, and the local referee over the real card's
// screens with PLUMBLINE's drift switches applied to the stored furniture.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextControl, nextRung, type Attempt, type ControlFacts, type LadderFacts } from '../../runner/escalate/decide.ts';
import { controlFitOf, fitOf, LocalReferee } from '../../runner/escalate/local.ts';
import { judge, judgeControl, NONE, type ControlQuestion, type RefereeQuestion, type ScreenOption } from '../../runner/escalate/referee.ts';
import { Capability } from '../../shared/schema/capability.ts';
import type { ScopeLink } from '../../shared/schema/observation.ts';

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
    ['every rung spent on this screen (the person never answered)', facts({ attempts: tried(['referee', 'none'], ['scout', 'none'], ['person', 'timeout']) }), { stop: 'exhausted' }],
    ['the scout wandered: the person', facts({ commitInFlight: true, attempts: tried(['referee', 'none'], ['scout', 'none']) }), { ask: 'person' }],
    ['a person named the screen: nothing more to ask', facts({ attempts: tried(['referee', 'none'], ['scout', 'none'], ['person', 'named']) }), { stop: 'named' }],
    ['a handback the page contradicted: no recovery, on any screen', facts({ screen: 'S2', attempts: tried(['person', 'mismatch', 'S1']) }), { stop: 'mismatch' }],
    ['the person could not be reached: climbed past, nothing left', facts({ onCall: ['person'], attempts: tried(['person', 'unavailable']) }), { stop: 'exhausted' }],
    ['a control-rung answer on this screen is no screen rung', facts({ attempts: [{ rung: 'control', target: 't', screen: 'S1', outcome: 'named' }] }), { ask: 'referee' }],
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

describe('whether to ask the control rung: once per target per screen per run', () => {
  const control = (f: Partial<ControlFacts>): ControlFacts => ({ screen: 'S1', target: 't', onCall: true, attempts: [], elapsedMs: 0, ceilingMs: 60_000, ...f });
  const asked = (target: string, screen: string, outcome: Attempt['outcome'] = 'refused'): Attempt => ({ rung: 'control', target, screen, outcome });
  it.each([
    ['never asked: ask', control({}), { ask: 'control' }],
    ['asked about this target on this screen: not again', control({ attempts: [asked('t', 'S1')] }), { stop: 'asked' }],
    ['another target on this screen: ask', control({ attempts: [asked('u', 'S1')] }), { ask: 'control' }],
    ['the same target on another screen: ask', control({ attempts: [asked('t', 'S0', 'named')] }), { ask: 'control' }],
    ['no referee that answers it', control({ onCall: false }), { stop: 'none_on_call' }],
    ['the ceiling is reached', control({ elapsedMs: 60_000 }), { stop: 'ceiling' }],
    ['a person aborted', control({ attempts: tried(['person', 'aborted']) }), { stop: 'aborted' }],
    ['a handback was contradicted', control({ attempts: tried(['person', 'mismatch']) }), { stop: 'mismatch' }],
  ] as const)('%s', (_, f, want) => {
    expect(nextControl(f)).toEqual(want);
  });
});

describe('the local referee on the control question: role, then label, then scope', () => {
  const target: ControlQuestion['target'] = { id: 'hold', role: 'link', name: 'Hold', scope: [{ role: 'row', name: '400118-S0001' }] };
  const row = (n: number, role: string, name: string, scope: readonly ScopeLink[] = []): ControlQuestion['rows'][number] => ({ n, text: `${n}: invoke ${role} '${name}'`, role, name, scope });
  it('is sure of the one row with the same role, label and scope', async () => {
    const q: ControlQuestion = { target, rows: [row(1, 'link', 'Sign Off'), row(2, 'link', 'Hold', [{ role: 'row', name: '400118-S0001' }]), row(3, 'link', 'Hold', [{ role: 'row', name: '400118-S0005' }])] };
    expect(judgeControl(await new LocalReferee().askControl(q), q)).toMatchObject({ kind: 'chosen', row: 2 });
  });
  it('is unsure between two rows it cannot tell apart (an ambiguous ladder stays ambiguous)', async () => {
    const q: ControlQuestion = { target: { ...target, scope: [] }, rows: [row(1, 'link', 'Hold', [{ role: 'row', name: 'A' }]), row(2, 'link', 'Hold', [{ role: 'row', name: 'B' }])] };
    expect(judgeControl(await new LocalReferee().askControl(q), q)).toMatchObject({ kind: 'unsure' });
  });
  it('says none of these when no row has the role', async () => {
    const q: ControlQuestion = { target, rows: [row(1, 'button', 'Hold'), row(2, 'textbox', 'Hold')] };
    expect(controlFitOf(target, q.rows[0] as ControlQuestion['rows'][number])).toBe(0);
    expect(judgeControl(await new LocalReferee().askControl(q), q)).toMatchObject({ kind: 'none' });
  });
  it('weighs a renamed label by its words', () => {
    expect(controlFitOf(target, row(1, 'link', 'Place Hold', target.scope))).toBeGreaterThan(controlFitOf(target, row(2, 'link', 'Sign Off', target.scope)));
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
