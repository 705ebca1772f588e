// The scout (rung 2): a model seated at the authoring card — the same tools; only act and finish do anything —
// with commit struck off and a four-turn leash. It may look, follow what only navigates, and must end by naming one
// of the screens the run hoped for. While a commit is in flight it may only look: the page after a commit is the
// evidence, and nothing may lead away from it. What it names is a proposal: the engine observes the page and
// re-checks the furniture (referee.ts `judge`) before it believes anything (docs/design/escalation.md, "The escalation
// ladder").
import { ActInput, FinishInput, type Model, type ToolCall, type ToolOutcome } from '../../shared/author/ports.ts';
import { screenText } from '../../shared/author/prompt.ts';
import { settleAfter } from '../../shared/author/settle.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import { ruledEffect } from '../../shared/surfaces.ts';
import type { Surface } from '../../shared/surface.ts';
import type { ScreenOption } from './referee.ts';

export const SCOUT_TURNS = 4;

export interface ScoutReport {
  /** The expected screen the scout named, or null when it named none within its leash. */
  named: string | null;
  turns: number;
  /** What it did and what was refused, in order (masked), for the evidence. */
  log: string[];
}

/** A model port that counts its requests: the receipt's `llm_calls`. */
export class CountedModel implements Model {
  calls = 0;
  constructor(private readonly inner: Model) {}
  get name(): string {
    return this.inner.name;
  }
  next(turn: Parameters<Model['next']>[0]): Promise<ToolCall[]> {
    this.calls++;
    return this.inner.next(turn);
  }
}

function system(expected: readonly ScreenOption[], lookOnly: boolean): string {
  return [
    'You are a scout for an automated run that does not recognise the screen in front of it.',
    'Find out which of these expected screens it is, and end with finish(label):',
    ...expected.map((o) => `- ${o.label}: "${o.title}"`),
    lookOnly
      ? 'A commit was just sent: do not act at all. Only look, then finish.'
      : 'You may follow links that only navigate. You may not type, choose, toggle or press anything that changes data: it will be refused.',
    `You have ${SCOUT_TURNS} turns. If it is none of them, call finish with label "none".`,
  ].join('\n');
}

export class Scout {
  constructor(
    readonly model: CountedModel,
    private readonly settleMs = 3_000,
  ) {}

  /** `mask` is the run's masker: nothing the scout is shown or logs carries a secret. */
  async run(surface: Surface, expected: readonly ScreenOption[], lookOnly: boolean, mask: (s: string) => string): Promise<ScoutReport> {
    const log: string[] = [];
    let results: ToolOutcome[] = [];
    const sys = system(expected, lookOnly);
    for (let turn = 1; turn <= SCOUT_TURNS; turn++) {
      const obs = await surface.observe();
      const menu = buildMenu(obs);
      const calls = await this.model.next({ turn, system: sys, screen: screenText(obs, menu, null, mask), results });
      results = [];
      for (const call of calls) {
        const answer = await this.#one(call, surface, menu, expected, lookOnly, log, mask);
        if ('named' in answer) return { named: answer.named, turns: turn, log };
        results.push({ id: call.id, ok: answer.ok, text: answer.text });
      }
      if (!calls.length) log.push(`turn ${turn}: no call`);
    }
    log.push(`no expected screen named within ${SCOUT_TURNS} turns`);
    return { named: null, turns: SCOUT_TURNS, log };
  }

  async #one(
    call: ToolCall,
    surface: Surface,
    menu: ReturnType<typeof buildMenu>,
    expected: readonly ScreenOption[],
    lookOnly: boolean,
    log: string[],
    mask: (s: string) => string,
  ): Promise<{ named: string | null } | { ok: boolean; text: string }> {
    const refuse = (why: string): { ok: false; text: string } => {
      log.push(`refused ${call.name}: ${why}`);
      return { ok: false, text: `refused: ${why}` };
    };
    if (call.name === 'finish') {
      const f = FinishInput.safeParse(call.input);
      if (!f.success) return refuse('finish needs a label');
      if (f.data.label === 'none') {
        log.push('named none of the expected screens');
        return { named: null };
      }
      if (!expected.some((o) => o.label === f.data.label)) return refuse(`${f.data.label} is not one of the expected screens`);
      log.push(`named ${f.data.label}`);
      return { named: f.data.label };
    }
    if (call.name !== 'act') return refuse(`${call.name} is not on the scout's card: look, follow navigation, then finish`);
    if (lookOnly) return refuse('a commit is in flight: the scout may only look');
    const a = ActInput.safeParse(call.input);
    if (!a.success) return refuse('act needs a row and a verb');
    const row = menu.find((r) => r.n === a.data.row);
    if (!row) return refuse(`no row ${a.data.row} on the menu`);
    if (a.data.verb !== row.verb) return refuse(`row ${row.n} is ${row.verb}, not ${a.data.verb}`);
    const effect = ruledEffect(surface.kind, row.verb, row.control.role);
    if (effect !== 'navigate' && effect !== 'read') return refuse(`${mask(renderRow(row))} may change data (commit struck off)`);
    log.push(`followed ${mask(renderRow(row))}`);
    const before = (await surface.observe()).signature;
    await surface.act(row.control.ref, { verb: row.verb });
    // The next turn should see where the link led: the authoring loop's own settling, bounded.
    await settleAfter(surface, before, { maxMs: this.settleMs });
    return { ok: true, text: 'done' };
  }
}
