// The surface registry (docs/design/verbs.md, "The surface registry"): the one place a surface is chosen, by the
// card's `surface`, for replay, verify, serve and the demo (through runner/run.ts) and for author. A surface
// declared but not built, or a name no surface has, is a typed refusal naming it — never a silent browser.
// Each driver's module is imported only when its surface is opened, so choosing one never loads another.
import { HandrailError } from '../shared/errors.ts';
import type { Browser } from 'playwright-core';
import type { Surface } from '../shared/surface.ts';
import { SURFACES, SurfaceName, type SurfaceDeclaration, type SurfaceRefusal } from '../shared/surfaces.ts';

export interface OpenOptions {
  headed?: boolean;
  /** A browser to open a context in instead of launching one (serve shares one); asked for only when needed. */
  browser?: () => Promise<Browser>;
  /** Record a Playwright trace of the run into this zip (`--trace`); the caller has refused cards with secrets. */
  trace?: string;
}

/** How the runner opens one declared surface. */
export interface SurfaceDriver {
  readonly declaration: SurfaceDeclaration;
  open(opts: OpenOptions): Promise<Surface>;
}

export type Chosen = { ok: true; driver: SurfaceDriver } | ({ ok: false } & SurfaceRefusal);

/** Thrown by `open` for a surface that cannot be chosen; `code` is the refusal's. Compare `code`, not the class. */
export class SurfaceChoiceError extends HandrailError<SurfaceRefusal['code']> {
  override readonly name = 'SurfaceChoiceError';
  readonly surface: string;
  constructor(r: SurfaceRefusal) {
    super(r.code, r.message, 'surface');
    this.surface = r.surface;
  }
}

export class SurfaceRegistry {
  readonly #drivers: Partial<Record<SurfaceName, SurfaceDriver>>;

  constructor(drivers: Partial<Record<SurfaceName, SurfaceDriver>>) {
    this.#drivers = drivers;
  }

  /** The driver for a surface name, or why there is none: unknown name, or declared but not available. */
  choose(name: string): Chosen {
    const parsed = SurfaceName.safeParse(name);
    if (!parsed.success) {
      return { ok: false, code: 'UNKNOWN_SURFACE', surface: name, message: `no surface is called "${name}" (surfaces: ${SurfaceName.options.join(', ')})` };
    }
    const driver = this.#drivers[parsed.data];
    if (!driver || !driver.declaration.available) {
      return { ok: false, code: 'SURFACE_UNAVAILABLE', surface: name, message: `the ${name} surface is declared but not available yet (available: ${this.available().join(', ') || 'none'})` };
    }
    return { ok: true, driver };
  }

  available(): SurfaceName[] {
    return SurfaceName.options.filter((n) => this.#drivers[n]?.declaration.available);
  }

  async open(name: string, opts: OpenOptions = {}): Promise<Surface> {
    const chosen = this.choose(name);
    if (!chosen.ok) throw new SurfaceChoiceError(chosen);
    return chosen.driver.open(opts);
  }
}

/**
 * Is the entry there at all, by the surface's declared check? A dead server is refused before a surface opens.
 * `http`: a GET of an http(s) entry; a 5xx or no connection is unreachable (other entries are not checked).
 */
export async function unreachable(declaration: SurfaceDeclaration, entry: string): Promise<string | null> {
  if (declaration.reachability !== 'http' || !/^https?:\/\//.test(entry)) return null;
  try {
    const res = await fetch(entry, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(5_000) });
    await res.body?.cancel();
    return res.status >= 500 ? `the server answered ${res.status}` : null;
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code;
    return cause ? `cannot connect (${cause})` : `cannot connect (${(e as Error).message})`;
  }
}

const browser: SurfaceDriver = {
  declaration: SURFACES.browser,
  async open(opts) {
    const { BrowserSurface } = await import('./browser/surface.ts');
    const shared = opts.browser ? await opts.browser() : undefined;
    return BrowserSurface.launch({ ...(opts.headed !== undefined ? { headed: opts.headed } : {}), ...(shared ? { browser: shared } : {}), ...(opts.trace ? { trace: opts.trace } : {}) });
  },
};

const tn3270: SurfaceDriver = {
  declaration: SURFACES.tn3270,
  async open() {
    const { TerminalSurface } = await import('../terminal-agent/surface.ts');
    return new TerminalSurface();
  },
};

/** The surface an entry is for when none is named: a tn3270:// entry is a terminal's, anything else a browser's. */
export function surfaceOfEntry(entry: string): SurfaceName {
  return /^tn3270:\/\//i.test(entry.trim()) ? 'tn3270' : 'browser';
}

/** macOS apps through the mac helper (docs/design/mac.md, "The mac surface"): HANDRAIL_MAC_HELPER picks it. */
const macos: SurfaceDriver = {
  declaration: SURFACES.macos,
  async open() {
    const { MacSurface } = await import('../mac-agent/surface.ts');
    return MacSurface.launch({ helper: process.env['HANDRAIL_MAC_HELPER'] });
  },
};

/** The product's registry: the browser, the terminal (terminal-agent/) and macOS (mac-agent/). */
export const surfaces = new SurfaceRegistry({ browser, tn3270, macos });
