// A model-mode session: the tab is handed to shared/author's runEvening, or resumeEvening after the worker was
// stopped. After each model answer and each call the evening's place (turns taken, the model's conversation, this
// turn's calls and answers) is kept in the session record, secrets masked, so a new worker can go on from it.
import { resumeEvening, runEvening, type EveningOptions, type EveningResult } from '../../shared/author/evening.ts';
import type { Model } from '../../shared/author/ports.ts';
import type { SessionContext } from './session-context.ts';
import type { SessionRecord } from './store.ts';

/** Starts (or resumes) the evening without waiting for it; whatever escapes it ends the session `failed`. */
export function spawnModelSession(ctx: SessionContext, s: SessionRecord, resume: boolean): void {
  runModelSession(ctx, s, resume).catch(async (e: unknown) => {
    const code = (e as { code?: string }).code ?? 'MODEL_FAILED';
    await ctx.end(s.id, 'failed', code, e instanceof Error ? e.message : String(e)).catch(() => undefined);
  });
}

/** A model evening, new or resumed, to its end: the session is closed with the evening's own ending. */
async function runModelSession(ctx: SessionContext, s: SessionRecord, resume: boolean): Promise<void> {
  const { d } = ctx;
  const saved = resume ? (s.evening ?? null) : null;
  let model: Model;
  try {
    model = await d.model(saved?.model ?? undefined);
  } catch (e) {
    if (resume) throw e;
    // Closed as any ending is: the secrets dropped and the model's site let go (the probe no longer starts there).
    await ctx.close(s.id, 'failed', (e as Error).message);
    return;
  }
  if (!resume) await ctx.update(s.id, (r) => ({ ...r, model: model.name }));
  const live = await ctx.open(s);
  live.model = model;
  const release = d.keepAlive();
  try {
    const o: EveningOptions = {
      surface: live.surface,
      model,
      owner: ctx.owner(s.id),
      book: live.book,
      goal: s.goal,
      entry: s.entry,
      inputs: live.inputs,
      selectorsFor: (ref) => live.surface.inner.selectorsFor(ref),
      progress: (line) => {
        ctx.update(s.id, (r) => ({ ...r, note: line })).catch(() => undefined);
      },
      checkpoint: async (state) => {
        await d.store.updateSession(s.id, (r) => ({ ...r, evening: live.masker.maskDeep(state) }));
      },
      ...(d.now ? { now: d.now } : {}),
    };
    const result: EveningResult = resume ? await resumeEvening(o, { lines: await d.store.lines(s.id), state: saved }) : await runEvening(o);
    const state = result.ok ? 'finished' : live.surface.halted ? 'stopped' : 'failed';
    await ctx.close(s.id, state, result.ok ? `finished on ${result.finished}` : `${result.code}: ${result.message}`);
  } finally {
    release();
  }
}
