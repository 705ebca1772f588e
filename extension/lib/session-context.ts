// What the parts of the session machine share: the worker's dependencies (HostDeps), a live session's in-memory
// state (Live), and the few session operations the host lends its parts (SessionContext). The parts are
// live-session.ts (opening a session and the panel's view), owner-questions.ts, model-session.ts and
// record-session.ts; host.ts composes them.
import type { Guard } from '../../shared/author/guard.ts';
import type { EveningInput, Model, Owner } from '../../shared/author/ports.ts';
import type { KnownScreen } from '../../shared/screens.ts';
import type { Masker } from '../../shared/secrets.ts';
import type { HaltableSurface } from './haltable-surface.ts';
import type { CommandReply } from './messages.ts';
import type { SessionBook } from './session-book.ts';
import type { BookStore, SessionRecord } from './store.ts';
import type { TabChannel } from './surface.ts';

export interface SecretVault {
  put(session: string, values: Record<string, string>): Promise<void>;
  get(session: string): Promise<Record<string, string> | null>;
  drop(session: string): Promise<void>;
}

export interface HostDeps {
  store: BookStore;
  tab(tabId: number): TabChannel;
  tabUrl(tabId: number): Promise<string>;
  vault: SecretVault;
  /** The model for a model-mode session; `saved` is its conversation as `Model.save()` gave it, to go on from. */
  model(saved?: unknown): Promise<Model>;
  /** Tell open panels that a session changed (they re-read IndexedDB). */
  changed(session: string): void;
  /** Keep the worker awake while a model evening runs; returns the release. */
  keepAlive(): () => void;
  newId(): string;
  now?: () => Date;
  /**
   * After a clerk's action whose screen shows unlabelled, how long after it to look again (each wait from the action's
   * end), until a look shows a labelled screen or another action comes (host.ts `#lookAgainLater`). Default 1, 2, 4 s.
   */
  lookAgainMs?: readonly number[];
  /** Has the content script start in every new document of these origins (and stop when nothing records). */
  /**
   * Scripts in every new document of these origins from document_start: the recorder with its main-world probe on a
   * record session's sites, the probe alone on a model session's (lib/gesture-probe.ts: which elements listen for a
   * double-click is known only to a probe that was there before the page's scripts).
   */
  agents?: { register(origins: string[], probeOnly?: string[]): Promise<void>; unregister(): Promise<void> };
}

/** A session while this worker is alive: its inputs (secrets included), surface, book and the screens labelled. */
export interface Live {
  session: string;
  inputs: EveningInput[];
  masker: Masker;
  surface: HaltableSurface;
  book: SessionBook;
  known: KnownScreen[];
  /** Record mode only: the guard the clerk's actions go through. */
  guard: Guard | null;
  /** Model mode only: the model the evening asks, so a Stop gives up its answer in flight. */
  model?: Model;
  /** Record mode only: the writes its guard watches; a site the clerk adds is added here, watched at once. */
  writes?: { origins: string[]; ignore: string[] };
  /** The panel's view as last written (signature, label and menu), to write only when it changed. */
  lastSignature: string | null;
}

export type EndState = 'failed' | 'stopped' | 'finished';

/** The session operations the host lends its parts. */
export interface SessionContext {
  readonly d: HostDeps;
  /** Changes the session record and tells the panels. */
  update(id: string, change: (s: SessionRecord) => SessionRecord): Promise<SessionRecord>;
  /** The live state of a running session, opened on first use (after a worker restart too). */
  open(s: SessionRecord): Promise<Live>;
  /** The owner of a session: its questions go to the side panel. */
  owner(session: string): Owner;
  /** Ends a session and closes its book with an `end` line. */
  end(id: string, state: EndState, code: string | null, message: string): Promise<void>;
  /** Ends a session whose book is already closed. */
  close(id: string, state: SessionRecord['state'], note: string): Promise<void>;
}

export const fail = (code: string, message: string): CommandReply => ({ ok: false, code, message });
