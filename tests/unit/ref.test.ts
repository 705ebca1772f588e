// One spelling of element refs and frame paths (shared/ref.ts): the extension spells a frame's path from inside it, the runner finds the frame again by that path, and unnamed and about:blank frames are found like named ones.
import { describe, expect, it } from 'vitest';
import { framePath as pathFromInside } from '../../extension/lib/frame.ts';
import {
  findFrame,
  formatRef,
  frameKey,
  frameLink,
  frameObservation,
  framePathOfScope,
  framesByUrl,
  frameSegment,
  parseFrameKey,
  parseRef,
  type FrameTree,
} from '../../shared/ref.ts';

/** A page's frames as a host sees them: a tree, each with a name (maybe none) and a URL. */
interface FakeFrame {
  name: string;
  url: string;
  children: FakeFrame[];
}
const frame = (name: string, url: string, children: FakeFrame[] = []): FakeFrame => ({ name, url, children });
const tree: FrameTree<FakeFrame> = {
  children: (f) => f.children,
  segment: (child, parent) => frameSegment(child.name, parent.children.indexOf(child)),
  url: (f) => f.url,
};

/** The same page as windows, as the content script in each frame sees it (window.parent, window.frames, window.name). */
function windows(f: FakeFrame, parent?: Window): Window {
  const w = { name: f.name, frames: [] as Window[] } as unknown as { name: string; frames: Window[]; parent: Window };
  w.parent = parent ?? (w as unknown as Window);
  w.frames = f.children.map((c) => windows(c, w as unknown as Window));
  return w as unknown as Window;
}

const page = frame('', 'http://bank/desk', [
  frame('', 'about:blank'),
  frame('', 'http://bank/form', [frame('inner', 'http://bank/inner'), frame('', 'about:blank')]),
  frame('work', 'http://bank/work'),
]);

describe('the element ref codec', () => {
  it('round-trips refs in the top document, a named frame, nested frames and unnamed frames', () => {
    for (const [path, ref] of [
      [[], '|c3'],
      [['work'], 'work|c3'],
      [['outer', 'inner'], 'outer>inner|f2'],
      [['#0'], '#0|c1'],
      [['#1', '#1'], '#1>#1|c0'],
    ] as const) {
      expect(formatRef(path, ref.split('|')[1]!)).toBe(ref);
      expect(parseRef(ref)).toEqual({ frame: [...path], key: frameKey(path), local: ref.split('|')[1] });
      expect(parseFrameKey(frameKey(path))).toEqual(path);
    }
  });

  it('reads nothing into what is not a ref', () => {
    expect(parseRef('c3')).toBeNull();
    expect(parseRef('work|')).toBeNull();
  });

  it('puts the frame key in the scope chain and reads the frame path back, one link or several', () => {
    expect(frameLink([])).toEqual([]);
    expect(frameLink(['outer', 'inner'])).toEqual([{ role: 'frame', name: 'outer>inner' }]);
    expect(framePathOfScope([{ role: 'frame', name: 'outer>inner' }, { role: 'row', name: 'R1' }])).toEqual(['outer', 'inner']);
    expect(framePathOfScope([{ role: 'frame', name: 'outer' }, { role: 'frame', name: '#1' }])).toEqual(['outer', '#1']);
    expect(framePathOfScope([{ role: 'row', name: 'R1' }])).toEqual([]);
  });

  it('makes a frame document\'s refs page-wide and prepends its frame link', () => {
    const doc = {
      url: 'http://bank/form',
      title: 'Form',
      controls: [{ ref: 'c0', role: 'button', name: 'Send', verbs: ['invoke' as const], scope: [{ role: 'form' as const, name: 'T' }], ancestors: ['form'] }],
      paths: ["form>button 'Send'"],
      text: 'Send',
      busy: false,
    };
    const f = frameObservation(['#1'], doc);
    expect(f.controls[0]).toMatchObject({ ref: '#1|c0', scope: [{ role: 'frame', name: '#1' }, { role: 'form', name: 'T' }] });
    expect(frameObservation([], doc).controls[0]).toMatchObject({ ref: '|c0', scope: [{ role: 'form', name: 'T' }] });
  });
});

describe('frame lookup', () => {
  it('finds named, unnamed and about:blank frames by their path, and nothing for a path not on the page', async () => {
    expect(await findFrame(page, [], tree)).toBe(page);
    expect((await findFrame(page, ['#0'], tree))?.url).toBe('about:blank');
    expect((await findFrame(page, ['#1'], tree))?.url).toBe('http://bank/form');
    expect((await findFrame(page, ['#1', 'inner'], tree))?.url).toBe('http://bank/inner');
    expect((await findFrame(page, ['#1', '#1'], tree))?.url).toBe('about:blank');
    expect((await findFrame(page, ['work'], tree))?.url).toBe('http://bank/work');
    // A named frame is not also known by its index: one spelling per frame.
    expect(await findFrame(page, ['#2'], tree)).toBeNull();
    expect(await findFrame(page, ['#0', 'x'], tree)).toBeNull();
    expect(await findFrame(page, ['nosuch'], tree)).toBeNull();
  });

  it('finds frames by URL', () => {
    expect(framesByUrl(page, 'about:blank', tree)).toHaveLength(2);
    expect(framesByUrl(page, 'http://bank/inner', tree).map((f) => f.name)).toEqual(['inner']);
    expect(framesByUrl(page, 'http://elsewhere/', tree)).toEqual([]);
  });

  it('finds every frame by the path the extension spells from inside it', async () => {
    const top = windows(page);
    const visit = async (f: FakeFrame, w: Window): Promise<void> => {
      expect(await findFrame(page, pathFromInside(w), tree)).toBe(f);
      for (const [i, c] of f.children.entries()) await visit(c, w.frames[i]!);
    };
    await visit(page, top);
    expect(pathFromInside(top.frames[1]!.frames[1]!)).toEqual(['#1', '#1']);
  });
});
