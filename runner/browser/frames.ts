// Playwright's frames as a shared/ref.ts FrameTree: the one place the runner spells a frame's path and finds a
// frame by its path or URL. The segment is read from the frame's element in its parent document — its `name`
// attribute, else its index in the parent's `window.frames` — which is how the extension spells it from inside
// the frame (extension/lib/frame.ts), so a ref recorded by either is found by both. Playwright's own
// `Frame.name()` is not used: it falls back to the element's id, which no page-side code can see as a name.
import type { Frame, Page } from 'playwright-core';
import { findFrame, frameSegment, framesByUrl, type FramePath, type FrameTree } from '../../shared/ref.ts';

/** A named frame's segment, read once per frame (Playwright reads a frame's name once too). An unnamed frame's
 *  index can change when a sibling is inserted before it, so it is read afresh each time. */
const named = new WeakMap<Frame, string>();

async function segmentOf(child: Frame): Promise<string> {
  const known = named.get(child);
  if (known !== undefined) return known;
  const el = await child.frameElement();
  try {
    const { name, index } = await el.evaluate((e) => {
      const w = (e as HTMLIFrameElement).contentWindow;
      let i = 0;
      while (i < window.frames.length && window.frames[i] !== w) i++;
      return { name: (e as Element).getAttribute('name') ?? '', index: i };
    });
    if (name) named.set(child, name);
    return frameSegment(name, index);
  } finally {
    await el.dispose();
  }
}

export const playwrightFrames: FrameTree<Frame> = {
  children: (f) => f.childFrames().filter((c) => !c.isDetached()),
  segment: (child) => segmentOf(child),
  url: (f) => f.url(),
};

/** The frame's path from the top document ([] for the main frame). */
export async function framePath(frame: Frame): Promise<string[]> {
  const path: string[] = [];
  for (let f: Frame = frame, parent = f.parentFrame(); parent; f = parent, parent = f.parentFrame()) {
    path.unshift(await segmentOf(f));
  }
  return path;
}

/** The frame at a path, unnamed and about:blank frames included; null when it is not on the page. */
export function frameAt(page: Page, path: FramePath): Promise<Frame | null> {
  return findFrame(page.mainFrame(), path, playwrightFrames);
}

/** Every live frame showing this URL. */
export function framesAtUrl(page: Page, url: string): Frame[] {
  return framesByUrl(page.mainFrame(), url, playwrightFrames);
}
