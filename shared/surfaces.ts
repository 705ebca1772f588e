// What each surface declares (docs/design/verbs.md, "The surface registry"): the rung kinds it can resolve, the
// scope kinds it produces, its risk rules, how it is checked reachable, the evidence it attaches and the error
// words it may raise. The core validates a card against its surface's declaration and reads risk from it; it never
// assumes a browser. Runnable anywhere (shared/): the Node drivers that open a surface live in runner/surfaces.ts.
import { z } from 'zod';
import type { EffectKind, RungKind } from './schema/capability.ts';
import type { ScopeLink, Verb } from './schema/observation.ts';
import { VERBS } from './operations.ts';

/** The surfaces a card may name. A card's surface is always explicit. */
export const SurfaceName = z.enum(['browser', 'tn3270', 'macos']);
export type SurfaceName = z.infer<typeof SurfaceName>;

export type SurfaceErrorCode = 'SURFACE_UNREACHABLE' | 'NAVIGATION_FAILED' | 'BROWSER_CRASHED' | 'ACTION_FAILED' | 'TIMEOUT' | 'STALE' | 'HUMAN_CONTROL';
export type EvidenceKind = 'screenshot' | 'text';

export interface SurfaceDeclaration {
  name: SurfaceName;
  /** False until the surface is built: a card naming it loads, and every run of it is refused SURFACE_UNAVAILABLE. */
  available: boolean;
  /** What an entry is for this surface, for people ("a URL", "host:port"). */
  entry: string;
  /** The rung kinds `resolve` can walk; a card using another does not load. */
  rungs: readonly RungKind[];
  /** The scope kinds its observations produce; a card using another does not load. */
  scopes: readonly ScopeLink['role'][];
  /** Its row links say which column their key is read from (`column`), so a card may pin it; else a card may not. */
  rowColumns: boolean;
  /** By role, the sticker an `invoke` gets before an owner is asked (a browser link navigates). */
  risk: Readonly<Record<string, EffectKind>>;
  /** How a run checks the surface is there before opening it: `http` (a GET of the entry), or not at all. */
  reachability: 'http' | 'none';
  /**
   * Which part of an entry the compiler turns into `{{env.BASE_URL}}` so a card runs against any deployment: a URL's
   * origin (`url_origin`), the whole entry (`whole`, e.g. a terminal's host:port), or nothing.
   */
  entryBase: 'url_origin' | 'whole' | 'none';
  /** What `evidence(kind)` can attach. */
  evidence: readonly EvidenceKind[];
  /** The error words `SurfaceError` may carry from this surface. */
  errors: readonly SurfaceErrorCode[];
}

const COMMON_ERRORS: readonly SurfaceErrorCode[] = ['SURFACE_UNREACHABLE', 'ACTION_FAILED', 'TIMEOUT', 'STALE'];

export const SURFACES: Readonly<Record<SurfaceName, SurfaceDeclaration>> = {
  browser: {
    name: 'browser',
    available: true,
    entry: 'a URL (http, https, file)',
    rungs: ['role_name', 'label', 'text', 'css'],
    scopes: ['frame', 'row', 'group', 'dialog', 'table', 'form', 'region', 'landmark'],
    rowColumns: false,
    risk: { link: 'navigate' },
    reachability: 'http',
    entryBase: 'url_origin',
    evidence: ['screenshot', 'text'],
    errors: [...COMMON_ERRORS, 'NAVIGATION_FAILED', 'BROWSER_CRASHED'],
  },
  // The terminal (terminal-agent/, docs/design/terminal.md, "The terminal surface"): text evidence only, no picture.
  tn3270: {
    name: 'tn3270',
    available: true,
    entry: 'tn3270://host:port',
    rungs: ['role_name', 'label', 'text'],
    // Rows: a line whose fields line up under a header line's words (terminal-agent/rows.ts), keyed by a named column.
    scopes: ['region', 'row'],
    rowColumns: true,
    risk: {},
    reachability: 'none',
    entryBase: 'whole',
    evidence: ['text'],
    errors: COMMON_ERRORS,
  },
  // mac-agent/ (docs/design/mac.md, "The mac surface"): no screenshot is declared, since the fake has no pixels
  // and the Swift helper takes none yet; HUMAN_CONTROL is a person's key or click during a run.
  macos: {
    name: 'macos',
    available: true,
    entry: 'an app bundle id',
    rungs: ['role_name', 'label', 'text'],
    scopes: ['group', 'dialog', 'table', 'row', 'region'],
    rowColumns: false,
    risk: {},
    reachability: 'none',
    entryBase: 'none',
    evidence: ['text'],
    errors: [...COMMON_ERRORS, 'HUMAN_CONTROL'],
  },
};

/** Why a surface cannot be chosen: a name no surface has, or one declared but not built yet. */
export type SurfaceRefusal = { code: 'UNKNOWN_SURFACE' | 'SURFACE_UNAVAILABLE'; surface: string; message: string };

/** The sticker an `invoke` on a control of this role gets by the surface's rules, or null: ask the owner. */
export function riskOf(surface: SurfaceName, role: string): EffectKind | null {
  return SURFACES[surface].risk[role] ?? null;
}

/**
 * The sticker an action gets before anyone is asked: the verb's own (the operations table), else the surface's
 * risk rule for the control's role; null when only an owner can say (an unruled button).
 */
export function ruledEffect(surface: SurfaceName, verb: Verb, role: string): EffectKind | null {
  const sticker = VERBS[verb].sticker;
  return sticker === 'by_risk' ? riskOf(surface, role) : sticker;
}
