// A panel named after its record ("Assign C-1002: Stolen bicycle…") is named for THIS record on any record: its
// record paths are templates filled from the run's inputs, never from a secret or a value too short to tell records apart.
import { describe, expect, it } from 'vitest';
import { labelledAs, labelledScreen, nameScreen, recordSignature, signatureOf, templateScreen, type KnownScreen } from '../../shared/screens.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { maskData } from '../../shared/dom/walk.ts';

const FURNITURE = [
  "banner>button 'Log out'",
  "main>region 'Cases'",
  "main>region>button 'Assign'",
  "main>region>button 'Cancel'",
  "main>region>combobox 'Assignee'",
  "main>region>heading 'Cases'",
  "main>region>textbox 'New case'",
  "title 'CaseDesk'",
];
/** The panel as the walker writes its paths: digits masked. */
const panel = (title: string): string[] => [...FURNITURE, `main>region 'Assign C-#: ${maskData(title)}'`, `main>region>heading 'Assign C-#: ${maskData(title)}'`].sort();
const SHED = 'Stolen bicycle from a locked shed';
const ELM = 'Water damage, 14 Elm Street';
const inputs = [
  { name: 'user', value: 'clerk', secret: false },
  { name: 'password', value: 'desk-2026', secret: true },
  { name: 'case_title', value: SHED, secret: false },
];
const seen = (paths: string[], text = '') => ({ signature: signatureOf(paths), paths, text });

function assignPanel(extra: Partial<KnownScreen> = {}): KnownScreen {
  return { ...labelledScreen('assign_panel', { signature: signatureOf(panel(SHED)), paths: panel(SHED) }, inputs), ...extra };
}

describe('record paths: the compiler keeps a path that carries the record as a template', () => {
  it('leaves a list row named by the value alone as furniture: the other rows show whichever record a run is for', () => {
    const list = [...FURNITURE, `main>list>listitem '${SHED}'`, `main>list>listitem '${ELM}'`].sort();
    const t = templateScreen({ signature: signatureOf(list), paths: list }, inputs);
    expect(t).toEqual({ signature: signatureOf(list), paths: list });
    // So a run for the other case names the list exactly, as before record paths.
    const listScreen = labelledScreen('cases', { signature: signatureOf(list), paths: list }, inputs);
    expect(nameScreen(seen(list), [listScreen], { case_title: ELM })).toMatchObject({ label: 'cases', how: 'exact' });
  });

  it('a detail screen whose heading is the record value alone is named for that record, on any record', () => {
    const detail = (title: string): string[] => [...FURNITURE, `main>region '${maskData(title)}'`, `main>region>heading '${maskData(title)}'`].sort();
    const t = templateScreen({ signature: signatureOf(detail(SHED)), paths: detail(SHED) }, inputs);
    expect(t.record).toEqual(["main>region '{{input.case_title}}'", "main>region>heading '{{input.case_title}}'"]);
    const screen = labelledScreen('case_detail', { signature: signatureOf(detail(SHED)), paths: detail(SHED) }, inputs);
    // A run for the other case names that case's detail exactly, and does not take the first case's detail for it.
    expect(nameScreen(seen(detail(ELM)), [screen], { case_title: ELM })).toMatchObject({ label: 'case_detail', how: 'exact' });
    expect(nameScreen(seen(detail(SHED)), [screen], { case_title: ELM })?.how).not.toBe('exact');
    // The whole name is the record: a case whose title only begins with it is another case, never this one exactly.
    const longer = `${SHED} (duplicate report)`;
    expect(nameScreen(seen(detail(longer)), [screen], { case_title: SHED })?.how).not.toBe('exact');
  });

  it('sections named by records are a collection: a run for another record on the same page names it exactly, as before', () => {
    // Two record-named sections (cards) on one list page, authored for the first: a run for the second sees the same page.
    const cards = (...titles: string[]): string[] => [...FURNITURE, ...titles.map((t) => `main>region '${maskData(t)}'`)].sort();
    const screen = labelledScreen('cases', { signature: signatureOf(cards(SHED, ELM)), paths: cards(SHED, ELM) }, inputs);
    expect(nameScreen(seen(cards(SHED, ELM)), [screen], { case_title: ELM })).toMatchObject({ label: 'cases', how: 'exact' });
    expect(nameScreen(seen(cards(SHED, ELM)), [screen], { case_title: SHED })).toMatchObject({ label: 'cases', how: 'exact' });
    // A page without the run's record is not that page exactly, nor is a detail page of the authored record alone.
    expect(nameScreen(seen(cards(SHED)), [screen], { case_title: ELM })).toBeNull();
    expect(nameScreen(seen(cards(ELM)), [screen], { case_title: ELM })?.how).not.toBe('exact');
  });

  it('a value alone inside a list, a row, a grid or an article stays furniture wherever the heading sits', () => {
    for (const chain of ['main>list>listitem>', 'main>table>row>', 'main>grid>row>', 'main>feed>article>']) {
      const paths = [...FURNITURE, `${chain}heading '${SHED}'`, `${chain}heading '${ELM}'`].sort();
      expect(templateScreen({ signature: signatureOf(paths), paths }, inputs).record, chain).toBeUndefined();
    }
  });

  it('cuts the path after the input value and puts the blank there; the rest of the screen stays furniture', () => {
    const t = templateScreen({ signature: signatureOf(panel(SHED)), paths: panel(SHED) }, inputs);
    expect(t.record).toEqual(["main>region 'Assign C-#: {{input.case_title}}", "main>region>heading 'Assign C-#: {{input.case_title}}"]);
    expect(t.paths).toEqual([...FURNITURE].sort());
    expect(t.signature).toBe(recordSignature(FURNITURE, t.record ?? []));
    expect(t.signature).not.toBe(signatureOf(panel(SHED)));
  });

  it('a screen whose paths carry no input value is kept exactly as recorded, signature and all', () => {
    const recorded = { signature: 'recorded-as-is', paths: [...FURNITURE] };
    expect(templateScreen(recorded, inputs)).toEqual({ signature: 'recorded-as-is', paths: [...FURNITURE] });
  });

  it('a secret is never a blank, even when its value stands in a path', () => {
    const paths = [...FURNITURE, "main>heading 'Key desk-2026 in use'"];
    const t = templateScreen({ signature: signatureOf(paths), paths }, inputs);
    expect(t.record).toBeUndefined();
    expect(t.paths).toContain("main>heading 'Key desk-2026 in use'");
  });

  it('a value with fewer than three letters once masked is not a blank: "C-1001" is "C-#" on every case', () => {
    const paths = [...FURNITURE, "main>region 'Assign C-#'"];
    const t = templateScreen({ signature: signatureOf(paths), paths }, [{ name: 'case_id', value: 'C-1001', secret: false }, { name: 'code', value: 'AB', secret: false }]);
    expect(t.record).toBeUndefined();
  });

  it('a value inside a longer word is not the record ("clerk" in "clerks"), and page text that spells a blank stays furniture', () => {
    const paths = [...FURNITURE, "main>heading 'All clerks'", "main>heading '{{input.user}} clerk'"];
    const t = templateScreen({ signature: signatureOf(paths), paths }, inputs);
    expect(t.record).toBeUndefined();
  });

  it('the card schema takes record paths only ending with a declared, non-secret input blank', () => {
    const card = (record_paths: string[]) => ({
      schema: 'handrail.capability/v1', id: 'c', intent: 'x', surface: 'browser', entry: 'http://x/',
      inputs: { case_title: { type: 'string' }, password: { type: 'string', secret: true } },
      screens: { s: { title: 'S', signature: 'x', paths: ['a'], record_paths } },
      targets: { t: { role: 'button', name: { eq: 'Go' }, supports: ['invoke'], scope: [], ladder: [{ rung: 'role_name', cost: 100 }], fingerprint: { over: ['role'], value: 'f' } } },
      steps: [{ id: 'go', intent: 'go', screen: 's', op: { verb: 'invoke' }, target: 't', effect: { kind: 'navigate' }, settle: { kind: 'none' } }],
      outcomes: { success: { screens: ['s'] } }, lifecycle: { state: 'draft' },
    });
    expect(Capability.safeParse(card(["main>region 'Assign {{input.case_title}}"])).success).toBe(true);
    const messages = (r: string[]) => (Capability.safeParse(card(r)).error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`).join('\n');
    expect(messages(["main>region 'Assign {{input.password}}"])).toMatch(/screens\.s\.record_paths\.0: .*secret/);
    expect(messages(["main>region 'Assign {{input.case_title}}'"])).toMatch(/must end with \{\{input\.<name>\}\}/);
    expect(Capability.safeParse(card(["main>heading '{{input.case_title}}'"])).success).toBe(true);
    expect(messages(["main>region 'Assign {{input.nobody}}"])).toMatch(/names no declared input/);
  });
});

describe('record paths: the namer fills the blank from the run and matches by that prefix', () => {
  const values = { case_title: SHED, user: 'clerk' };

  it('names the panel of the case the run is about, exactly, whatever else its name says', () => {
    expect(nameScreen(seen(panel(SHED)), [assignPanel()], values)).toEqual({ label: 'assign_panel', how: 'exact', score: 1 });
    // The same case with a longer heading (a tag after the title): still this case's panel.
    expect(nameScreen(seen(panel(`${SHED} (urgent)`)), [assignPanel()], values)).toMatchObject({ label: 'assign_panel', how: 'exact' });
  });

  it('on another case the template is filled with that case, so that case`s panel is named and the first case`s is not', () => {
    expect(nameScreen(seen(panel(ELM)), [assignPanel()], { case_title: ELM })).toMatchObject({ label: 'assign_panel', how: 'exact' });
    // The run is about the shed, the page shows Elm Street's panel: 8 of 12 paths in common (0.67), not named.
    expect(nameScreen(seen(panel(ELM)), [assignPanel()], values)).toBeNull();
    // A title that only begins like the run's ("…locked shedding") is another case.
    expect(nameScreen(seen(panel(`${SHED}ding`)), [assignPanel()], values)).toBeNull();
  });

  it('the guard and the compiler (labelledAs, with the evening`s inputs) call the labelled panel labelled, and only for its case', () => {
    expect(labelledAs(seen(panel(SHED)), [assignPanel()], inputs)).toBe('assign_panel');
    expect(labelledAs(seen(panel(ELM)), [assignPanel()], inputs)).toBeNull();
  });

  it('without the run`s value (a secret left out, a caller that gave none) a template matches nothing', () => {
    expect(nameScreen(seen(panel(SHED)), [assignPanel()], {})).toBeNull();
    expect(labelledAs(seen(panel(SHED)), [assignPanel()], inputs.filter((i) => i.name !== 'case_title'))).toBeNull();
  });

  it('a page path that spells the template itself is not the record (page text cannot stand in for it)', () => {
    const forged = [...FURNITURE, "main>region 'Assign C-#: {{input.case_title}}", "main>region>heading 'Assign C-#: {{input.case_title}}"];
    expect(nameScreen(seen(forged), [assignPanel()], values)).toBeNull();
  });

  it('a screen that can follow a commit still needs all its marks on the similar tier (refusal vs success)', () => {
    const success = assignPanel({ afterCommit: true, marks: { paths: ["main>region>button 'Assign'"], text: [] } });
    const refusal = panel(SHED).filter((p) => p !== "main>region>button 'Assign'").concat("main>region>button 'Retry'");
    expect(nameScreen(seen(refusal), [success], values)).toBeNull();
    const unmarked = assignPanel({ afterCommit: true });
    const banner = [...panel(SHED), "main>status 'Saved'"];
    expect(nameScreen(seen(banner), [unmarked], values)).toBeNull();
    expect(nameScreen(seen(banner), [assignPanel({ afterCommit: true, marks: { paths: ["main>region>button 'Assign'"], text: [] } })], values)).toMatchObject({ how: 'similar' });
  });

  it('a screen without record paths is named exactly as before, with or without values', () => {
    const plain: KnownScreen = { label: 'cases', signature: signatureOf(FURNITURE), paths: FURNITURE };
    expect(nameScreen(seen(FURNITURE), [plain], values)).toEqual(nameScreen(seen(FURNITURE), [plain]));
    expect(nameScreen(seen([...FURNITURE, 'x']), [plain], values)).toEqual(nameScreen(seen([...FURNITURE, 'x']), [plain]));
  });
});
