// A clerk's change to a session's book from the side panel (docs/design/capability.md, "Editing a book"): undo the last
// step, remove a step, a value's blank or literal, a label renamed. The book is edited and re-sealed by
// shared/author/book-edit.ts and replaced in IndexedDB in one transaction; the host then rebuilds the session's
// guard from the edited book. Run under the session's lock, so no action is half-written meanwhile.
import { BookEditError, editBook } from '../../shared/author/book-edit.ts';
import type { EveningInput } from '../../shared/author/ports.ts';
import { blankFor } from '../../shared/schema/blanks.ts';
import type { TraceLine } from '../../shared/schema/trace.ts';
import { Masker } from '../../shared/secrets.ts';
import type { CommandReply, PanelCommand } from './messages.ts';
import { fail, type SessionContext } from './session-context.ts';

type EditCommand = Extract<PanelCommand, { type: 'edit' }>;

/** What the clerk should know after an undo or removal: the application is not changed back. */
function afterRemoval(removed: TraceLine | undefined): string {
  if (removed?.kind !== 'act') return '';
  if (removed.effect.kind === 'commit') return ' It was a commit: the application keeps what it did; only the book no longer says so.';
  if (removed.after.signature !== removed.before.signature) {
    return ` The application still shows where that step led: go back to ${removed.before.label ?? 'the screen it started on'} before you go on, or the book will have a hole there.`;
  }
  return '';
}

export async function editSession(ctx: SessionContext, cmd: EditCommand): Promise<CommandReply> {
  const s = await ctx.d.store.getSession(cmd.session);
  if (!s) return fail('NO_SESSION', 'no such session');
  const running = s.state === 'running';
  if (running && s.mode === 'model') return fail('NOT_RECORDING', 'while the model works the book is its own: stop the session, or let it finish, then change a step');
  if (s.dispatched) return fail('BUSY', 'an action is still under way; change the book once it is written');
  let inputs: readonly EveningInput[];
  let masker: Masker;
  if (running) {
    try {
      const live = await ctx.open(s);
      inputs = live.inputs;
      masker = live.masker;
    } catch (e) {
      return fail((e as { code?: string }).code ?? 'SURFACE_FAILED', (e as Error).message);
    }
  } else {
    // An ended session has forgotten its secrets' values, so a literal could not be checked against them: a value
    // may then only become one of the task's blanks.
    inputs = s.inputs.map((i) => ({ name: i.name, secret: i.secret, value: i.value ?? '' }));
    masker = new Masker();
    const edit = cmd.edit;
    if (edit.op === 'value' && !s.inputs.some((i) => blankFor(i.name) === edit.value.trim())) {
      return fail('EDIT_REFUSED', `the session has ended, so a value can only become one of its blanks (${s.inputs.map((i) => blankFor(i.name)).join(', ')})`);
    }
  }
  const lines = await ctx.d.store.lines(s.id);
  let edited: TraceLine[];
  try {
    edited = editBook(lines, cmd.edit, { by: cmd.by, at: ctx.d.now?.() ?? new Date(), inputs, masker });
  } catch (e) {
    if ((e as { name?: string }).name !== 'BookEditError') throw e;
    return fail((e as BookEditError).code, masker.mask((e as Error).message));
  }
  await ctx.d.store.replaceLines(s.id, edited);
  const line = edited.at(-1);
  const what = line?.kind === 'edit' ? line.what : 'changed';
  const removed = line?.kind === 'edit' && (line.op === 'undo' || line.op === 'remove') ? lines.find((l) => l.seq === line.line) : undefined;
  const note = masker.mask(`Changed the book: ${what}.${afterRemoval(removed)}`);
  await ctx.update(s.id, (r) => ({ ...r, note }));
  return { ok: true, text: note };
}
