// Observing a Playwright page: the walker runs in every frame, its controls get page-wide refs, and the frames'
// paths are joined into one screen (shared/screens.ts).
//
// Ref format: `<framePath>|<ref>`, where framePath is the frame names from the top document down joined by '>'
// ('' for the top document; an unnamed frame is '#<n>'). Examples: '|c3' (top), 'work|c3', 'outer>inner|f2', '#0|c1'.
import type { ElementHandle, Frame, Page } from 'playwright-core';
import type { DocumentObservation, FindQuery, InPage } from '../../shared/dom/api.ts';
import type { FrameObservation, Observation } from '../../shared/schema/observation.ts';
import { combineFrames } from '../../shared/screens.ts';
import { WALKER_VERSION, walkerSource } from './walker-bundle.ts';

type WithWalker = typeof globalThis & { __handrail?: InPage };

/** Frame path from the top document: the name of each frame element on the way down ([] for the top). An
 *  unnamed frame is `#<n>`, its position among its parent's child frames, so it never collides with the top. */
export function framePath(frame: Frame): string[] {
  const path: string[] = [];
  for (let f: Frame | null = frame; f; f = f.parentFrame()) {
    const parent = f.parentFrame();
    if (!parent) break;
    path.unshift(f.name() || `#${parent.childFrames().indexOf(f)}`);
  }
  return path;
}

export function frameKey(path: readonly string[]): string {
  return path.join('>');
}

/** Installs the walker in a frame's document unless this walker version is already there. */
export async function ensureWalker(frame: Frame): Promise<void> {
  const present = await frame.evaluate(
    (v) => (globalThis as WithWalker).__handrail?.version === v,
    WALKER_VERSION,
  );
  if (present) return;
  await frame.evaluate(await walkerSource());
}

/** One round trip when the walker is already installed; the result crosses as one JSON string, which
 *  Playwright moves several times faster than the same value as a nested object. */
async function observeDocument(frame: Frame): Promise<DocumentObservation> {
  const run = () =>
    frame.evaluate((v) => {
      const api = (globalThis as WithWalker).__handrail;
      return api && api.version === v ? JSON.stringify(api.observe()) : null;
    }, WALKER_VERSION);
  let json = await run();
  if (json === null) {
    await frame.evaluate(await walkerSource());
    json = await run();
  }
  if (json === null) throw new Error(`the walker did not install in frame ${frame.url()}`);
  return JSON.parse(json) as DocumentObservation;
}

async function observeFrame(frame: Frame): Promise<FrameObservation> {
  const doc = await observeDocument(frame);
  const path = framePath(frame);
  const key = frameKey(path);
  const frameLink = path.length ? [{ role: 'frame' as const, name: key }] : [];
  return {
    frame: path,
    url: doc.url,
    title: doc.title,
    controls: doc.controls.map((c) => ({ ...c, ref: `${key}|${c.ref}`, scope: [...frameLink, ...c.scope] })),
    paths: doc.paths,
    text: doc.text,
  };
}

/** Every frame that has a document we can reach (detached frames and about:blank children are skipped). */
function liveFrames(page: Page): Frame[] {
  return page.frames().filter((f) => !f.isDetached());
}

export async function observePage(page: Page): Promise<Observation> {
  const frames = await Promise.all(liveFrames(page).map((f) => observeFrame(f)));
  frames.sort((a, b) => frameKey(a.frame).localeCompare(frameKey(b.frame)));
  return combineFrames(frames, WALKER_VERSION);
}

export function splitRef(ref: string): { frame: string; local: string } | null {
  const bar = ref.lastIndexOf('|');
  if (bar < 0) return null;
  return { frame: ref.slice(0, bar), local: ref.slice(bar + 1) };
}

export function frameByKey(page: Page, key: string): Frame | undefined {
  return liveFrames(page).find((f) => frameKey(framePath(f)) === key);
}

/** The element behind a page-wide ref from the latest observePage()/findInPage(), or null if it is gone. */
export async function resolveRef(page: Page, ref: string): Promise<ElementHandle | null> {
  const parts = splitRef(ref);
  if (!parts) return null;
  const frame = frameByKey(page, parts.frame);
  if (!frame) return null;
  await ensureWalker(frame);
  const handle = await frame.evaluateHandle((r) => (globalThis as WithWalker).__handrail!.element(r), parts.local);
  const el = handle.asElement();
  if (!el) {
    await handle.dispose();
    return null;
  }
  return el as ElementHandle;
}

/** Runs one rung in one frame (given by its path key) and returns page-wide refs of every match. */
export async function findInFrame(page: Page, key: string, q: FindQuery): Promise<string[]> {
  const frame = frameByKey(page, key);
  if (!frame) return [];
  await ensureWalker(frame);
  const refs = await frame.evaluate((query) => (globalThis as WithWalker).__handrail!.find(query), q);
  return refs.map((r) => `${key}|${r}`);
}

/** Visible text (or a field's value) of the element behind a page-wide ref; '' when it is gone. */
export async function textOfRef(page: Page, ref: string): Promise<string> {
  const parts = splitRef(ref);
  const frame = parts ? frameByKey(page, parts.frame) : undefined;
  if (!parts || !frame) return '';
  await ensureWalker(frame);
  return frame.evaluate((r) => (globalThis as WithWalker).__handrail!.textOf(r), parts.local);
}
