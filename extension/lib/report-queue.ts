// The content script's reports to the worker, one at a time and in the clerk's order (a typed value before the click
// that submits it), and what becomes of those that cannot go as they are (docs/design/extension.md, "The extension's
// trusted input": no silent loss). Each report waits for the worker's answer to the one before, which comes once that
// one is booked — so a document being left still holds those behind it, and they would never leave. When the
// document is left, each report not yet handed over goes at once as what it now is, a clerk's action lost (the guard
// must not do it on the next document, whose controls are others); one the worker could not be reached for is sent as
// lost right after the next report that gets through, or as the document is left.
import { lostValue } from '../../shared/schema/trace.ts';
import type { ClerkAct, ClerkLost, ClerkUnrecorded } from './messages.ts';

export type Report = ClerkAct | ClerkUnrecorded | ClerkLost;

/** A clerk_act as a lost action: the verb, the control, a key's or a pick's value (never a typed text). */
export function lostOf(a: ClerkAct, why: ClerkLost['why']): ClerkLost {
  return {
    type: 'clerk_lost',
    event: a.event,
    verb: a.verb,
    ...(a.control ? { control: { role: a.control.role.slice(0, 200), name: a.control.name.slice(0, 500) } } : {}),
    ...lostValue(a.verb, a.value),
    why,
  };
}

export interface QueueOptions {
  /** Sends one report and waits for the worker's answer; rejects when the worker could not be reached. */
  send(r: Report): Promise<unknown>;
  /** Sends one report without waiting (the document is going). */
  post(r: Report): void;
  /** Whether this script may still send (the extension was not reloaded under it). */
  alive(): boolean;
  /** How long to wait before the n-th try again (a worker being restarted may miss one message). */
  wait?(attempt: number): Promise<void>;
}

const TRIES = 3;

export class ReportQueue {
  readonly #o: QueueOptions;
  readonly #queue: Report[] = [];
  /** Reports the worker could not be reached for, as lost actions, to go once a report gets through again. */
  readonly #undelivered: ClerkLost[] = [];
  #running = false;

  constructor(o: QueueOptions) {
    this.#o = o;
  }

  push(r: Report): void {
    this.#queue.push(r);
    if (!this.#running) void this.#drain();
  }

  /**
   * The document is being left: every report not yet handed over goes now, without waiting — a clerk's act as lost
   * (`leaving`), anything else as it is — after those the worker could not be reached for, then `also` (what the
   * frame held and had not reported yet). The one being sent is the worker's already.
   */
  leaving(also: readonly ClerkLost[] = []): void {
    if (!this.#o.alive()) return;
    const waiting = this.#queue.splice(0).map((r) => (r.type === 'clerk_act' ? lostOf(r, 'leaving') : r));
    for (const r of [...this.#undelivered.splice(0), ...waiting, ...also]) this.#o.post(r);
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      for (let r = this.#queue.shift(); r; r = this.#queue.shift()) {
        if (!(await this.#deliver(r))) {
          if (r.type === 'clerk_act') this.#undelivered.push(lostOf(r, 'undelivered'));
          else if (r.type === 'clerk_lost') this.#undelivered.push(r);
          continue;
        }
        // The worker answers again: what it could not be reached for before is booked now, before what comes next.
        while (this.#undelivered.length && this.#o.alive()) {
          const lost = this.#undelivered[0] as ClerkLost;
          if (!(await this.#deliver(lost))) break;
          this.#undelivered.shift();
        }
      }
    } finally {
      this.#running = false;
    }
  }

  async #deliver(r: Report): Promise<boolean> {
    for (let attempt = 0; attempt < TRIES && this.#o.alive(); attempt++) {
      try {
        await this.#o.send(r);
        return true;
      } catch {
        await (this.#o.wait?.(attempt) ?? new Promise((res) => setTimeout(res, 250 * (attempt + 1))));
      }
    }
    return false;
  }
}
