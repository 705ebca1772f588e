// Side-effect detection (docs/design/writes.md, "Writes"): which requests an action caused count as writes to the
// application. A request is a write when it is not safe in the sense of RFC 9110 §9.2.1 (anything but GET, HEAD,
// OPTIONS, TRACE), or is a WebSocket message or a beacon, goes to one of the app's origins, and is not an endpoint
// the card declares ignorable (analytics, a sign-on that changes no record, a preview that only renders).
// Surface-neutral: a browser reports HTTP requests; another surface may report what it sends in the same shape.

/** How a request left the application: a fetch/XHR, a form submission (a navigation), a beacon, a WebSocket message. */
export type WriteVia = 'request' | 'form' | 'beacon' | 'websocket';

/** One request an action caused, as a surface reports it. */
export interface Request {
  method: string;
  url: string;
  via: WriteVia;
}

/**
 * What became of a write: `allowed` (it went out after the owner said yes, or the step is a declared commit),
 * `blocked` (held and stopped: the owner said no or did not answer), `unasked` (it went out before anyone could
 * be asked: the surface cannot hold it, or nobody was given the chance).
 */
export type WriteFate = 'allowed' | 'blocked' | 'unasked';

export interface SeenWrite extends Request {
  fate: WriteFate;
}

/** The app's origins and the endpoints whose writes are not effects. */
export interface WriteScope {
  origins: readonly string[];
  /** "METHOD /path" or "/path" (any method); a trailing `*` matches a prefix. */
  ignore: readonly string[];
}

/** Asked while a write is held, before it leaves: true lets it go, false stops it. */
export type WriteGate = (w: Request) => Promise<boolean>;

/**
 * How a request left the page, from the browser's resource type — Playwright's (`document`, `ping`) or
 * chrome.webRequest's (`main_frame`, `sub_frame`, `ping`): a non-GET document request is a form submission, a ping
 * a beacon (`navigator.sendBeacon`, `<a ping>`), anything else (fetch, XHR, a script's request) a request.
 */
export function viaOf(resourceType: string, method: string): WriteVia {
  if (resourceType === 'ping') return 'beacon';
  const documentRequest = resourceType === 'document' || resourceType === 'main_frame' || resourceType === 'sub_frame';
  return documentRequest && method.toUpperCase() !== 'GET' ? 'form' : 'request';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** The origin of a URL, with ws/wss spelled as the http/https origin they upgrade from; null when it has none. */
export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    const scheme = u.protocol === 'ws:' ? 'http:' : u.protocol === 'wss:' ? 'https:' : u.protocol;
    if (scheme !== 'http:' && scheme !== 'https:') return null;
    return `${scheme}//${u.host}`;
  } catch {
    return null;
  }
}

/** A URL's path, without its query (whose values may be a record's) or fragment. */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

function ignored(r: Request, ignore: readonly string[]): boolean {
  const path = pathOf(r.url);
  return ignore.some((entry) => {
    const sp = entry.indexOf(' ');
    const method = sp > 0 ? entry.slice(0, sp).toUpperCase() : null;
    const pattern = sp > 0 ? entry.slice(sp + 1) : entry;
    if (method !== null && method !== r.method.toUpperCase()) return false;
    return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
  });
}

/** Whether a request is a write to the app: non-safe (or a message/beacon), to one of its origins, not ignorable. */
export function isWrite(r: Request, scope: WriteScope): boolean {
  const unsafe = r.via === 'websocket' || r.via === 'beacon' || !SAFE_METHODS.has(r.method.toUpperCase());
  if (!unsafe) return false;
  const origin = originOf(r.url);
  if (origin === null || !scope.origins.some((o) => originOf(o) === origin)) return false;
  return !ignored(r, scope.ignore);
}

/** The scope a card declares, with the entry's origin when it names none. `fill` fills blanks such as {{env.BASE_URL}}. */
export function scopeOf(entry: string, declared: { origins?: readonly string[] | undefined; ignore?: readonly string[] | undefined } | undefined, fill: (s: string) => string = (s) => s): WriteScope {
  const origins = declared?.origins?.length ? declared.origins.map(fill) : [entry];
  return { origins, ignore: declared?.ignore ?? [] };
}

/** A write as one line for a person: "POST http://127.0.0.1:8080/post (form)". Mask it before it is written. */
export function describeWrite(w: Request): string {
  return `${w.method.toUpperCase()} ${w.url}${w.via === 'request' ? '' : ` (${w.via})`}`;
}

/** The "METHOD /path" an ignore list names a write by. */
export function endpointOf(w: Request): string {
  return `${w.method.toUpperCase()} ${pathOf(w.url)}`;
}
