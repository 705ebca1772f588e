// Side-effect detection in replay (docs/ARCHITECTURE.md, "Writes"): each step's window runs from just before it
// is journalled to just before the next one is, so a write sent while the page settles, or a moment later, is
// still its own. A step that is not a commit and sends a write to the card's origins ends the run
// UNSAFE_TO_RETRY / UNDECLARED_WRITE with the requests (masked by the evidence) in the evidence.
import type { Capability, Step } from '../../shared/schema/capability.ts';
import type { Surface } from '../../shared/surface.ts';
import { describeWrite, originOf, scopeOf, type SeenWrite, type WriteScope } from '../../shared/writes.ts';
import type { Evidence } from '../evidence.ts';

export interface WriteEnding {
  word: 'UNSAFE_TO_RETRY';
  code: 'UNDECLARED_WRITE';
  message: string;
  atStep: string;
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
  ) {
    const base = originOf(entry) ?? entry;
    this.#scope = scopeOf(entry, card.network, (o) => o.replaceAll('{{env.BASE_URL}}', base));
    this.#enforced = card.network !== undefined;
  }

  get #can(): boolean {
    return typeof this.surface.watchWrites === 'function' && typeof this.surface.takeWrites === 'function';
  }

  /** Closes the previous step's window (an ending if it wrote undeclared) and opens this step's. */
  async begin(step: Step): Promise<WriteEnding | null> {
    const ended = await this.end();
    if (ended) return ended;
    if (!this.#can) return null;
    await this.surface.watchWrites?.(this.#scope);
    this.#step = step;
    return null;
  }

  /**
   * Runs `fn` — one act of a person at the console while a commit is in flight — with every write to the card's
   * origins held and stopped (docs/ARCHITECTURE.md, "A person on the ladder"): a link whose script posts would otherwise send a write
   * that passes for the commit's own in this window. What the window saw before is kept; what was stopped goes into
   * the evidence as `writes_stopped`. Without an open window or a surface that can hold writes, `fn` runs as it is.
   */
  async refusing<T>(fn: () => Promise<T>): Promise<T> {
    const step = this.#step;
    if (!step || !this.#can || this.surface.writesUnheld) return fn();
    this.#carried.push(...((await this.surface.takeWrites?.()) ?? []));
    await this.surface.watchWrites?.(this.#scope, () => Promise.resolve(false));
    try {
      return await fn();
    } finally {
      const seen = (await this.surface.takeWrites?.()) ?? [];
      await this.surface.watchWrites?.(this.#scope);
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
    const step = this.#step;
    const carried = this.#carried;
    this.#step = null;
    this.#carried = [];
    if (!step) return null;
    const writes = [...carried, ...((await this.surface.takeWrites?.()) ?? [])];
    if (writes.length === 0) return null;
    const undeclared = step.effect.kind !== 'commit';
    await this.evidence.append(undeclared ? 'undeclared_write' : 'writes', {
      step: step.id,
      effect: step.effect.kind,
      checked: this.#enforced,
      writes: writes.map((w) => ({ method: w.method, url: w.url, via: w.via })),
    });
    if (!undeclared || !this.#enforced) return null;
    return {
      word: 'UNSAFE_TO_RETRY',
      code: 'UNDECLARED_WRITE',
      message: `${step.id} is not a commit (${step.effect.kind}) but sent ${writes.map(describeWrite).join(', ')}: it changed the application; check it before running again`,
      atStep: step.id,
    };
  }
}
