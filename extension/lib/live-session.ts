// Opening a session in this worker (its inputs with the secrets from the vault, the tab's surface, the book, the
// screens already labelled) and keeping the side panel's view of the live screen (label and masked menu).
import type { EveningInput } from '../../shared/author/ports.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { labelledAs, labelledScreen, type KnownScreen } from '../../shared/screens.ts';
import { Masker } from '../../shared/secrets.ts';
import { HaltableSurface } from './haltable-surface.ts';
import type { HostDeps, Live, SessionContext } from './session-context.ts';
import { SessionBook } from './session-book.ts';
import type { SessionRecord } from './store.ts';
import { ExtensionSurface } from './surface.ts';

/** A session's live state, built from its record, the vault and its book. Throws SECRET_GONE when the vault lost a secret. */
export async function openLive(ctx: Pick<SessionContext, 'd' | 'update'>, s: SessionRecord): Promise<Live> {
  const d: HostDeps = ctx.d;
  const secrets = await d.vault.get(s.id);
  const inputs: EveningInput[] = [];
  for (const i of s.inputs) {
    const value = i.secret ? secrets?.[i.name] : i.value;
    if (value === undefined) throw Object.assign(new Error(`the value of the secret "${i.name}" is gone (the browser was closed); start a new session`), { code: 'SECRET_GONE' });
    inputs.push({ name: i.name, value, secret: i.secret });
  }
  const masker = Masker.forInputs(inputs);
  const inner = new ExtensionSurface(d.tab(s.tabId));
  inner.recording = s.mode === 'record';
  // The labels already in the book (a restarted worker), for the panel's view of the live screen.
  const known: KnownScreen[] = (await d.store.lines(s.id)).flatMap((l) =>
    l.kind === 'label' ? [labelledScreen(l.label, l.screen, inputs)] : [],
  );
  const book = new SessionBook(d.store, s.id, (l) => {
    if (l.kind === 'label') known.push(labelledScreen(l.label, l.screen, inputs));
    d.changed(s.id);
    return Promise.resolve();
  });
  const surface = new HaltableSurface(inner, (obs) => showLive(ctx, live, obs));
  const live: Live = { session: s.id, inputs, masker, surface, book, known, guard: null, lastSignature: null };
  return live;
}

/** Keeps the panel's view of the live screen (label and masked menu) current, writing only when it changed. */
async function showLive(ctx: Pick<SessionContext, 'update'>, live: Live, obs: Observation): Promise<void> {
  const menu = buildMenu(obs).map((r) => live.masker.mask(renderRow(r)));
  // The guard's own answer (shared/screens.ts labelledAs), so the panel never names a screen the guard would not.
  const label = labelledAs(obs, live.known, live.inputs);
  const key = `${obs.signature}|${label ?? ''}|${menu.join('\n')}`;
  if (key === live.lastSignature) return;
  live.lastSignature = key;
  await ctx.update(live.session, (r) => ({ ...r, view: { url: live.masker.mask(obs.locus.url ?? ''), signature: obs.signature, label, menu } }));
}
