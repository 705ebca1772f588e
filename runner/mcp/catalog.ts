// Which cards go on the menu: every *.json in the directory is read; only an approved card whose approval
// still matches its content hash is served. Every other card is listed with the reason it is off the menu.
// `LiveCatalog` keeps that answer in step with the folder while the server runs.
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatIssues, loadCapability } from '../../shared/schema/load.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { approvalStatus, contentHash } from '../approval.ts';
import { surfaces, type SurfaceRegistry } from '../surfaces.ts';
import { HandrailError } from '../../shared/errors.ts';

export interface Served {
  file: string;
  card: Capability;
  by: string;
}

export interface OffMenu {
  file: string;
  /** draft | verified | edited_after_approval | schema_error | duplicate_id | unreadable | SURFACE_UNAVAILABLE */
  why: string;
  reason: string;
}

export interface Catalog {
  served: Served[];
  off: OffMenu[];
}

export class CatalogError extends HandrailError<'CAPABILITIES_DIR'> {
  override readonly name = 'CatalogError';
  constructor(message: string) {
    super('CAPABILITIES_DIR', message);
  }
}

export async function loadCatalog(dir: string, registry: SurfaceRegistry = surfaces): Promise<Catalog> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json')).sort();
  } catch (e) {
    throw new CatalogError(`cannot read the capabilities directory ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const served: Served[] = [];
  const off: OffMenu[] = [];
  for (const name of names) {
    const file = join(dir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      off.push({ file, why: 'unreadable', reason: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      continue;
    }
    const loaded = loadCapability(text);
    if (!loaded.ok) {
      off.push({ file, why: 'schema_error', reason: `not a valid capability:\n${formatIssues(loaded.issues)}` });
      continue;
    }
    const card = loaded.value;
    const status = approvalStatus(card);
    if (!status.servable) {
      off.push({ file, why: status.state, reason: status.reason });
      continue;
    }
    // A tool whose every call would be refused is not offered: the registry says which surfaces can run.
    const chosen = registry.choose(card.surface);
    if (!chosen.ok) {
      off.push({ file, why: chosen.code, reason: chosen.message });
      continue;
    }
    const twin = served.find((s) => s.card.id === card.id);
    if (twin) {
      off.push({ file, why: 'duplicate_id', reason: `card id ${card.id} is already served from ${twin.file}` });
      continue;
    }
    served.push({ file, card, by: status.by });
  }
  return { served, off };
}

export function describeCatalog(dir: string, catalog: Catalog): string {
  const lines = [`handrail serve: ${catalog.served.length} tool(s) from ${dir}`];
  for (const s of catalog.served) lines.push(`  serving ${s.card.id} (${s.file}), approved by ${s.by}`);
  for (const o of catalog.off) lines.push(`  off the menu: ${o.file}: ${o.why}: ${o.reason.replace(/\n/g, '\n    ')}`);
  return lines.join('\n');
}

/** What tells two catalogs apart for a client: which card ids are served, with which content. */
function fingerprintOf(c: Catalog): string {
  return c.served.map((s) => `${s.card.id}@${contentHash(s.card)}`).sort().join('\n');
}

export interface LiveOptions {
  registry?: SurfaceRegistry;
  log?: (line: string) => void;
  /** How long the folder must be quiet before it is read again (an editor writes a file in several steps). Default 150 ms. */
  settleMs?: number;
}

/**
 * The catalog kept in step with its folder: a card added, approved, edited (its content hash no longer matches the
 * approval, so it is withdrawn until approved again) or deleted changes the served set, and every listener hears
 * of it once the folder has been quiet for `settleMs`. The folder is watched with `fs.watch` (inotify on Linux);
 * `reload()` reads it on demand too.
 */
export class LiveCatalog {
  readonly dir: string;
  #current: Catalog;
  #print: string;
  readonly #opts: LiveOptions;
  readonly #listeners = new Set<(c: Catalog) => void>();
  #watcher: FSWatcher | null = null;
  #timer: NodeJS.Timeout | null = null;
  #reading: Promise<boolean> = Promise.resolve(false);

  private constructor(dir: string, first: Catalog, opts: LiveOptions) {
    this.dir = dir;
    this.#current = first;
    this.#print = fingerprintOf(first);
    this.#opts = opts;
  }

  /** Reads the folder once (a missing folder is a CatalogError) and starts watching it. */
  static async open(dir: string, opts: LiveOptions = {}): Promise<LiveCatalog> {
    const live = new LiveCatalog(dir, await loadCatalog(dir, opts.registry), opts);
    live.#watch();
    return live;
  }

  get catalog(): Catalog {
    return this.#current;
  }

  get served(): Served[] {
    return this.#current.served;
  }

  /** Calls `fn` after each change of the served set; returns how to stop. */
  onChange(fn: (c: Catalog) => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }

  #watch(): void {
    try {
      this.#watcher = watch(this.dir, { persistent: false }, () => this.#soon());
      this.#watcher.on('error', (e) => this.#opts.log?.(`catalog: stopped watching ${this.dir}: ${e.message}`));
    } catch (e) {
      this.#opts.log?.(`catalog: cannot watch ${this.dir} (${(e as Error).message}); the tool list will not follow it`);
    }
  }

  #soon(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.reload();
    }, this.#opts.settleMs ?? 150);
  }

  /** Reads the folder again; true when the served set changed (and listeners were told). Reads never overlap. */
  reload(): Promise<boolean> {
    this.#reading = this.#reading.then(async () => {
      let next: Catalog;
      try {
        next = await loadCatalog(this.dir, this.#opts.registry);
      } catch (e) {
        // The folder went away: nothing can be served from it.
        this.#opts.log?.(`catalog: ${(e as Error).message}; serving no tool until it is back`);
        next = { served: [], off: [] };
      }
      const print = fingerprintOf(next);
      this.#current = next;
      if (print === this.#print) return false;
      this.#print = print;
      this.#opts.log?.(describeCatalog(this.dir, next));
      for (const fn of this.#listeners) fn(next);
      return true;
    });
    return this.#reading;
  }

  close(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = null;
    this.#listeners.clear();
  }
}
