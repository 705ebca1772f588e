// Side-effect detection in replay (docs/design/writes.md, "Writes"): each step's window runs from just before it
// is journalled to just before the next one is, so a write sent while the page settles, or a moment later, is
// still its own. For a card that declares `network`, a step that is no commit has every write to the card's origins
// held and stopped before it leaves (a surface that can hold: the browser routes them); the run then ends FAILED
// UNDECLARED_WRITE, nothing sent. A write that could not be held (a WebSocket message, a surface that only watches)
// reached the app: UNSAFE_TO_RETRY / UNDECLARED_WRITE. Either way the requests (masked by the evidence) are in the evidence.
import type { Capability, Step } from '../../shared/schema/capability.ts';
import type { Surface } from '../../shared/surface.ts';
import { describeWrite, endpointOf, originOf, pathOf, scopeOf, type SeenWrite, type WriteGate, type WriteScope } from '../../shared/writes.ts';
import type { Evidence } from '../evidence.ts';
import type { HeldWrite } from './journal.ts';

export interface WriteEnding {
  /** FAILED when every undeclared write was held (nothing reached the app); UNSAFE_TO_RETRY when one left. */
  word: 'UNSAFE_TO_RETRY' | 'FAILED';
  code: 'UNDECLARED_WRITE';
  message: string;
  atStep: string;
  /** The writes held before they left, by method and path (none of a query's or a body's values), when nothing left. */
  held?: HeldWrite[];
}

/** The gate of a step that may not write: every write is stopped before it leaves. */
const REFUSE: WriteGate = () => Promise.resolve(false);

/** "POST /audit": a write by method and path, as a receipt names it (the query's values stay out). */
function named(w: SeenWrite): string {
  return `${endpointOf(w)}${w.via === 'request' ? '' : ` (${w.via})`}`;
}

export class WriteCheck {
  readonly #scope: WriteScope;
  readonly #enforced: boolean;
  #step: Step | null = null;
  /** The open window's writes, taken out while a person acted with every write stopped (`refusing`). */
  #carried: SeenWrite[] = [];

  constructor(
    private readonly surface: Surface,
    card: Capability,
    /** The filled entry: `{{env.BASE_URL}}` in an origin is its origin (the one environment blank a card holds). */
    entry: string,
    private readonly evidence: Evidence,
    /** A rehearsal: the commit's window holds its writes too (nothing a rehearsal does may reach the app). */
    private readonly rehearsing = false,
  ) {
    const base = originOf(entry) ?? entry;
    this.#scope = scopeOf(entry, card.network, (o) => o.replaceAll('{{env.BASE_URL}}', base));
    this.#enforced = card.network !== undefined;
  }

  get #can(): boolean {
    return typeof this.surface.watchWrites === 'function' && typeof this.surface.takeWrites === 'function';
  }

  /** Whether `step`'s writes are held: a card that declares its network, a step that is no commit, a surface that can hold. */
  #holds(step: Step): boolean {
    return this.#enforced && (step.effect.kind !== 'commit' || this.rehearsing) && !this.surface.writesUnheld;
  }

  /**
   * Closes the previous step's window (an ending if it wrote undeclared) and opens this step's. The next window is
   * open before the last one is judged (its evidence line written), so no write slips out between the two.
   */
  async begin(step: Step): Promise<WriteEnding | null> {
    const taken = await this.#take();
    // A window with an undeclared write ends the run before `step` acts: what the page sends from now on is still the
    // step that wrote's doing, and held as its writes were.
    const ending = taken !== null && this.#enforced && taken.step.effect.kind !== 'commit' && taken.writes.length > 0;
    const owner = ending ? taken.step : step;
    if (this.#can) {
      await this.surface.watchWrites?.(this.#scope, this.#holds(owner) ? REFUSE : undefined);
      this.#step = owner;
    }
    return await this.#judge(taken);
  }

  /**
   * Runs `fn` — one act of a person at the console while a commit is in flight — with every write to the card's
   * origins held and stopped (docs/design/escalation.md, "The escalation ladder", "A person on the ladder"): a link whose script posts would otherwise send a write
   * that passes for the commit's own in this window. What the window saw before is kept; what was stopped goes into
   * the evidence as `writes_stopped`. Without an open window or a surface that can hold writes, `fn` runs as it is.
   */
  async refusing<T>(fn: () => Promise<T>): Promise<T> {
    const step = this.#step;
    if (!step || !this.#can || this.surface.writesUnheld) return fn();
    this.#carried.push(...((await this.surface.takeWrites?.()) ?? []));
    await this.surface.watchWrites?.(this.#scope, REFUSE);
    try {
      return await fn();
    } finally {
      const seen = (await this.surface.takeWrites?.()) ?? [];
      await this.surface.watchWrites?.(this.#scope, this.#holds(step) ? REFUSE : undefined);
      // What could not be held (a WebSocket frame) reached the app: it stays the window's, judged with the rest.
      const stopped = seen.filter((w) => w.fate === 'blocked');
      this.#carried.push(...seen.filter((w) => w.fate !== 'blocked'));
      if (stopped.length) {
        await this.evidence.append('writes_stopped', {
          step: step.id,
          by: 'person',
          writes: stopped.map((w) => ({ method: w.method, url: w.url, via: w.via, fate: w.fate })),
        });
      }
    }
  }

  /** Closes the open window: its writes go into the evidence; one from a step that is no commit ends the run. */
  async end(): Promise<WriteEnding | null> {
    return await this.#judge(await this.#take());
  }

  /** Closes the open window and hands back what it saw. */
  async #take(): Promise<{ step: Step; writes: SeenWrite[] } | null> {
    const step = this.#step;
    const carried = this.#carried;
    this.#step = null;
    this.#carried = [];
    if (!step) return null;
    return { step, writes: [...carried, ...((await this.surface.takeWrites?.()) ?? [])] };
  }

  async #judge(taken: { step: Step; writes: SeenWrite[] } | null): Promise<WriteEnding | null> {
    if (!taken || taken.writes.length === 0) return null;
    const { step, writes } = taken;
    const undeclared = step.effect.kind !== 'commit';
    await this.evidence.append(undeclared ? 'undeclared_write' : 'writes', {
      step: step.id,
      effect: step.effect.kind,
      checked: this.#enforced,
      writes: writes.map((w) => ({ method: w.method, url: w.url, via: w.via, fate: w.fate })),
    });
    if (!undeclared || !this.#enforced) return null;
    const left = writes.filter((w) => w.fate !== 'blocked');
    const held = writes.filter((w) => w.fate === 'blocked');
    if (left.length === 0) {
      return {
        word: 'FAILED',
        code: 'UNDECLARED_WRITE',
        message: `${step.id} is not a commit (${step.effect.kind}) but tried to send ${held.map(named).join(', ')}: held before it left, nothing was sent; the card does not declare this write (make the step a commit, or list the endpoint in network.ignore, then verify and approve it again)`,
        atStep: step.id,
        held: held.map((w) => ({ method: w.method.toUpperCase(), path: pathOf(w.url), via: w.via })),
      };
    }
    const stopped = held.length ? ` (${held.map(named).join(', ')} held, not sent)` : '';
    return {
      word: 'UNSAFE_TO_RETRY',
      code: 'UNDECLARED_WRITE',
      message: `${step.id} is not a commit (${step.effect.kind}) but sent ${left.map(describeWrite).join(', ')}${stopped}: it changed the application; check it before running again`,
      atStep: step.id,
    };
  }
}
