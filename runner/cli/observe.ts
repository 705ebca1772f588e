// `handrail observe <url>`: open a page headlessly and print what the walker sees — the observation JSON, the
// numbered menu (grouped by frame), or the screen text. Output on stdout; one clear line on stderr on failure.
import { HandrailError } from '../../shared/errors.ts';
import { UsageError } from './errors.ts';
import { SurfaceError, type Surface } from '../../shared/surface.ts';
import { surfaceOfEntry, surfaces } from '../surfaces.ts';
import { screenDump } from '../../shared/screens.ts';
import { buildMenu, renderRow } from '../../shared/menu.ts';
import type { Observation } from '../../shared/schema/observation.ts';
import { notAtRestWhy, REST_TIMEOUT_MS, untilAtRest } from '../../shared/rest.ts';

export type ObserveFormat = 'json' | 'menu' | 'text';

class ObserveError extends HandrailError<'BAD_URL' | 'UNREACHABLE' | 'NO_BROWSER' | 'UNKNOWN_SURFACE' | 'SURFACE_UNAVAILABLE'> {
  override readonly name = 'ObserveError';
}

function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ObserveError('BAD_URL', `not a URL: ${JSON.stringify(raw)} (give a full address, e.g. http://127.0.0.1:8080/signon)`);
  }
  if (!['http:', 'https:', 'file:', 'tn3270:'].includes(url.protocol)) {
    throw new ObserveError('BAD_URL', `cannot observe a ${url.protocol} address: use http, https, file or tn3270 (tn3270://host:port)`);
  }
  if (url.protocol === 'tn3270:' && (!url.hostname || !url.port)) {
    throw new ObserveError('BAD_URL', `a terminal address names its host and port: tn3270://host:port, not ${JSON.stringify(raw)}`);
  }
  return url;
}

/** `--settle-timeout <ms>`: a whole number of milliseconds, 1 to an hour. */
export function settleTimeoutFlag(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(Number.isInteger(n) && n >= 1 && n <= 3_600_000)) throw new UsageError(`--settle-timeout expects a whole number from 1 to 3600000, got "${v.slice(0, 20)}"`);
  return n;
}

export function formatObservation(obs: Observation, format: ObserveFormat): string {
  if (format === 'json') return `${JSON.stringify(obs, null, 2)}\n`;
  if (format === 'text') {
    return `${screenDump(obs)}\n`;
  }
  const rows = buildMenu(obs);
  const out: string[] = [`screen ${obs.signature} (${obs.paths.length} paths, ${obs.observer})`];
  for (const f of obs.parts) {
    const mine = rows.filter((r) => f.controls.includes(r.control));
    const where = f.locus.url ?? (f.locus.host ? `${f.locus.host} ${f.locus.screen ?? ''}`.trim() : '');
    out.push(`== frame '${f.part.join('>')}' ${f.locus.title ? `"${f.locus.title}" ` : ''}${where}`);
    out.push(...(mine.length ? mine.map(renderRow) : ['(no actions)']));
  }
  return `${out.join('\n')}\n`;
}

export async function observeCommand(url: string, opts: { format: ObserveFormat; surface?: string; settleTimeoutMs?: number }): Promise<number> {
  let surface: Surface | undefined;
  try {
    // Chosen by the registry, as every other command chooses its surface (a tn3270:// entry picks the terminal).
    const chosen = surfaces.choose(opts.surface ?? surfaceOfEntry(url));
    if (!chosen.ok) throw new ObserveError(chosen.code, chosen.message);
    // A URL for the browser and the terminal (tn3270://host:port); another surface's entry is its own (a macOS
    // bundle id), checked by its `open`.
    const kind = chosen.driver.declaration.name;
    const parsed = kind === 'browser' || kind === 'tn3270' ? parseUrl(url) : null;
    const entry = parsed ? (parsed.protocol === 'tn3270:' ? `tn3270://${parsed.host}` : parsed.href) : url;
    try {
      surface = await chosen.driver.open({});
    } catch (e) {
      // Only the browser's driver fails for want of a browser; a terminal or the mac helper that cannot start is
      // the surface being unavailable, said by its own message.
      throw new ObserveError(kind === 'browser' ? 'NO_BROWSER' : 'SURFACE_UNAVAILABLE', e instanceof Error ? e.message : String(e));
    }
    try {
      await surface.open(entry);
    } catch (e) {
      if (!(e instanceof SurfaceError)) throw e;
      throw new ObserveError('UNREACHABLE', `cannot open ${entry}: ${e.message}`);
    }
    // The first screen at rest, as replay and authoring take it: a booting app's loading screen is not what it
    // shows (docs/design/replay.md, "A first screen at rest"). One never at rest is printed, and said so.
    const live = surface;
    const loaded = live.loaded?.bind(live);
    const timeoutMs = opts.settleTimeoutMs ?? REST_TIMEOUT_MS;
    const rest = await untilAtRest({ look: () => live.observe(), observation: (o) => o, timeoutMs, ...(loaded ? { loaded } : {}) });
    const obs = rest.look ?? (await live.observe());
    if (!rest.atRest) process.stderr.write(`handrail observe: note: the page was not at rest after ${timeoutMs} ms (${notAtRestWhy(rest.why)}): this is what it showed then\n`);
    process.stdout.write(formatObservation(obs, opts.format));
    return 0;
  } catch (e) {
    if (e instanceof ObserveError) {
      process.stderr.write(`handrail observe: ${e.code}: ${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    await surface?.close();
  }
}
