// Playwright's frames as a shared/ref.ts FrameTree: the one place the runner spells a frame's path and finds a
// frame by its path or URL. The segment is read from the frame's element in its parent document — its `name`
// attribute, else its index in the parent's `window.frames` — which is how the extension spells it from inside
// the frame (extension/lib/frame.ts), so a ref recorded by either is found by both. Playwright's own
// `Frame.name()` is not used: it falls back to the element's id, which no page-side code can see as a name.
import type { Frame, Page } from 'playwright-core';
import { findFrame, frameSegment, framesByUrl, type FramePath, type FrameTree } from '../../shared/ref.ts';

/** A frame's element lives as long as the frame; its name attribute is read once, as Playwright reads it once. */
const segments = new WeakMap<Frame, Promise<string>>();

async function readSegment(child: Frame): Promise<string> {
  const el = await child.frameElement();
  try {
    const { name, index } = await el.evaluate((e) => {
      const w = (e as HTMLIFrameElement).contentWindow;
      let i = 0;
      while (i < window.frames.length && window.frames[i] !== w) i++;
      return { name: (e as Element).getAttribute('name') ?? '', index: i };
    });
    return frameSegment(name, index);
  } finally {
    await el.dispose();
  }
}

function segmentOf(child: Frame): Promise<string> {
  let s = segments.get(child);
  if (!s) {
    s = readSegment(child);
    // A failed read (the frame detached mid-way) is not remembered: the next look asks again.
    void s.catch(() => segments.delete(child));
    segments.set(child, s);
  }
  return s;
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
