// One at a time, in order: a model that sends "fill, fill, click" in one message must not click an empty form.
// Every guarded call goes through one Lock, so even callers that fire several calls at once are served in the
// order they arrived, each finishing (book line written) before the next begins.
export class Lock {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(fn, fn);
    // The chain must go on after a failure; the caller still sees the rejection through `next`.
    this.#tail = next.catch(() => undefined);
    return next;
  }
}
