// Element refs and frame paths: how every surface over a page (the runner's Playwright surface, the extension's
// tab surface) names a frame and an element in it, and how it finds the frame again. Written once, here: two
// copies drifted before, and the one the tests did not reach could not find an unnamed iframe.
//
// A frame path is one segment per frame from the top document down ([] is the top). A segment is the frame's
// name, or `#<n>` when it has none: its index among its parent's child frames as the parent's `window.frames`
// counts them (HTML §7.3.3; Chromium counts in the order frames were created), so an unnamed frame, an
// about:blank frame and a srcdoc frame are all addressable, and a page script and a host agree on the number. A frame key joins the segments with '>'.
// An element ref is `<frame key>|<local ref>`, the local ref being the walker's (shared/dom) inside that frame:
//   '|c3' (top document)   'work|c3'   'outer>inner|f2'   '#0|c1' (the first child frame, unnamed)
import type { DocumentObservation } from './dom/api.ts';
import type { Control, Part, ScopeLink } from './schema/observation.ts';

export const FRAME_SEPARATOR = '>';
export const REF_SEPARATOR = '|';

export type FramePath = readonly string[];

/** The segment that names a frame: its name, or `#<index>` among its parent's child frames when unnamed. */
export function frameSegment(name: string, index: number): string {
  return name || `#${index}`;
}

export function frameKey(path: FramePath): string {
  return path.join(FRAME_SEPARATOR);
}

/** Inverse of frameKey: '' is the top document ([]). */
export function parseFrameKey(key: string): string[] {
  return key === '' ? [] : key.split(FRAME_SEPARATOR);
}

export function formatRef(path: FramePath, local: string): string {
  return `${frameKey(path)}${REF_SEPARATOR}${local}`;
}

export interface ParsedRef {
  frame: string[];
  key: string;
  local: string;
}

/** A page-wide ref split into its frame and its local part; null for anything that is not a ref. */
export function parseRef(ref: string): ParsedRef | null {
  const bar = ref.lastIndexOf(REF_SEPARATOR);
  if (bar < 0 || bar === ref.length - 1) return null;
  const key = ref.slice(0, bar);
  return { frame: parseFrameKey(key), key, local: ref.slice(bar + 1) };
}

/** The scope link a control inside a frame carries (none in the top document): the frame's key, whole. */
export function frameLink(path: FramePath): ScopeLink[] {
  return path.length ? [{ role: 'frame', name: frameKey(path) }] : [];
}

/**
 * Whether two scope chains name the same places (each link's role and name, in order). With `frames: false` the frame
 * links are left out of both: a frame reports its controls' scopes without the link the page-wide look prepends.
 */
export function sameScope(a: readonly ScopeLink[], b: readonly ScopeLink[], o: { frames?: boolean } = {}): boolean {
  const kept = (s: readonly ScopeLink[]): readonly ScopeLink[] => (o.frames === false ? s.filter((l) => l.role !== 'frame') : s);
  const x = kept(a);
  const y = kept(b);
  return x.length === y.length && x.every((l, i) => l.role === y[i]?.role && l.name === y[i]?.name);
}

/** Whether `c` is the control `was` was, as a later look shows it: the same role, name and place (its ref may differ). */
export function sameNamedControl(c: Pick<Control, 'role' | 'name' | 'scope'>, was: Pick<Control, 'role' | 'name' | 'scope'>): boolean {
  return c.role === was.role && c.name === was.name && sameScope(c.scope, was.scope);
}

/** The frame path a scope chain names. Each frame link holds a key, so a nested frame may be one link or several. */
export function framePathOfScope(scope: readonly ScopeLink[]): string[] {
  return scope.filter((s) => s.role === 'frame').flatMap((s) => parseFrameKey(s.name));
}

/** One frame's document as the page-wide observation holds it: refs made page-wide, the frame link prepended. */
/** One frame's document as a screen part: the frame path is the part path; URL and title are the part's locus. */
export function frameObservation(path: FramePath, doc: DocumentObservation): Part {
  const link = frameLink(path);
  return {
    part: [...path],
    locus: { url: doc.url, title: doc.title },
    controls: doc.controls.map((c) => ({ ...c, ref: formatRef(path, c.ref), scope: [...link, ...c.scope] })),
    paths: doc.paths,
    text: doc.text,
    ...(doc.said?.length ? { said: [...doc.said] } : {}),
    ...(doc.rows?.length ? { rows: doc.rows.map((r) => ({ key: r.key, text: r.text })) } : {}),
    ...(doc.busy ? { busy: true as const } : {}),
    ...(doc.moving ? { moving: true as const } : {}),
  };
}

/** How a host's frame objects hang together. `segment` spells a child as frameSegment does. */
export interface FrameTree<F> {
  children(frame: F): readonly F[];
  segment(child: F, parent: F): string | Promise<string>;
  url(frame: F): string;
}

/** The frame at a path below `root`, or null. Spelling and lookup share `segment`, so they cannot disagree. */
export async function findFrame<F>(root: F, path: FramePath, tree: FrameTree<F>): Promise<F | null> {
  let frame = root;
  for (const want of path) {
    let next: F | null = null;
    for (const child of tree.children(frame)) {
      if ((await tree.segment(child, frame)) === want) {
        next = child;
        break;
      }
    }
    if (next === null) return null;
    frame = next;
  }
  return frame;
}

/** Every frame below and including `root` whose URL is `url` (a page may load one document twice). */
export function framesByUrl<F>(root: F, url: string, tree: FrameTree<F>): F[] {
  const out: F[] = [];
  const visit = (f: F): void => {
    if (tree.url(f) === url) out.push(f);
    for (const c of tree.children(f)) visit(c);
  };
  visit(root);
  return out;
}
