// The clerk's tab as a Surface the clerk can halt: once halted every verb but `evaluate` fails, so a running
// evening ends itself at once (and writes its own end line). Each observation is also shown to the panel.
import type { Observation } from '../../shared/schema/observation.ts';
import { SurfaceError, type ActResult, type Answer, type BoundTarget, type MenuPick, type Operation, type Query, type Resolution, type Surface } from '../../shared/surface.ts';
import type { SeenWrite, WriteScope } from '../../shared/writes.ts';
import type { ExtensionSurface } from './surface.ts';

export class HaltableSurface implements Surface {
  halted = false;
  readonly kind;
  readonly observer;
  readonly writesUnheld;
  constructor(
    readonly inner: ExtensionSurface,
    private readonly seen: (obs: Observation) => Promise<void>,
  ) {
    this.kind = inner.kind;
    this.observer = inner.observer;
    this.writesUnheld = inner.writesUnheld;
  }
  #live(): void {
    if (this.halted) throw new SurfaceError('ACTION_FAILED', 'the clerk stopped the session');
  }
  open(entry: string): Promise<void> {
    this.#live();
    return this.inner.open(entry);
  }
  async observe(): Promise<Observation> {
    this.#live();
    const obs = await this.inner.observe();
    await this.seen(obs);
    return obs;
  }
  resolve(t: BoundTarget): Promise<Resolution> {
    this.#live();
    return this.inner.resolve(t);
  }
  act(ref: string, op: Operation): Promise<ActResult> {
    this.#live();
    return this.inner.act(ref, op);
  }
  menuPick(ref: string): Promise<MenuPick | null> {
    this.#live();
    return this.inner.menuPick(ref);
  }
  evaluate(q: Query): Promise<Answer> {
    return this.inner.evaluate(q);
  }
  evidence(kind: 'screenshot'): Promise<Uint8Array>;
  evidence(kind: 'text'): Promise<string>;
  evidence(kind: 'screenshot' | 'text'): Promise<Uint8Array | string> {
    return kind === 'screenshot' ? this.inner.evidence('screenshot') : this.inner.evidence('text');
  }
  // Watching goes on after a halt: the writes an action sent before it are still that action's.
  watchWrites(scope: WriteScope): Promise<void> {
    return this.inner.watchWrites(scope);
  }
  takeWrites(): Promise<SeenWrite[]> {
    return this.inner.takeWrites();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
