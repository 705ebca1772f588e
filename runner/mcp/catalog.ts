// Which cards go on the menu: every *.json in the directory is read; only an approved card whose approval
// still matches its content hash is served. Every other card is listed with the reason it is off the menu.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatIssues, loadCapability } from '../../shared/schema/load.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { approvalStatus } from '../approval.ts';
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
