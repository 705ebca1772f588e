// Test support: TiddlyWiki (npm `tiddlywiki`, a wiki nobody here wrote) on 127.0.0.1 for a spec file — a fresh wiki
// folder made by its own `--init server`, its own `--listen` on a free port, waited for until /status answers, stopped
// afterwards — and its judge, the wiki's own REST API (GET /recipes/default/tiddlers/<title>), never the screen.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { BrowserSurface } from '../../../runner/browser/surface.ts';
import type { Judge } from '../../../runner/judge.ts';
import { appScene, type Scene, type SceneOptions } from './scene.ts';

const TIDDLYWIKI = createRequire(import.meta.url).resolve('tiddlywiki/tiddlywiki.js');

/**
 * Who may do what, as `--listen` takes it (`readers=(anon) writers=editor`). Users are told by a request header
 * (`authenticated-user-header=`, as behind a signing-in proxy) rather than basic auth, whose 401 challenge would have
 * Chromium wait for a password nobody types instead of answering the page's request.
 */
export interface Access {
  readers?: string;
  writers?: string;
  /** The header that names the user; a request without it is anonymous. */
  userHeader?: string;
}

export interface Wiki {
  /** http://127.0.0.1:PORT, the same across restarts. */
  url: string;
  dir: string;
  /** A tiddler as the wiki's API gives it, or null (404). */
  tiddler(title: string): Promise<Record<string, unknown> | null>;
  /** Stops the server and starts it again on the same port and folder with other access rules (an admin's change). */
  restart(access?: Access): Promise<void>;
  /** Every tiddler anyone created deleted through the API, so a test starts from the fresh wiki. */
  store: { reset(): Promise<void> };
  close(): Promise<void>;
}

/** `tiddlywiki DIR --listen …` until it says where it serves; rejects with what it printed if it exits first. */
function listen(dir: string, port: number, access: Access): Promise<{ child: ChildProcess; port: number }> {
  const args = [TIDDLYWIKI, dir, '--listen', 'host=127.0.0.1', `port=${port}`];
  if (access.userHeader) args.push(`authenticated-user-header=${access.userHeader}`);
  if (access.readers) args.push(`readers=${access.readers}`);
  if (access.writers) args.push(`writers=${access.writers}`);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const seen = (b: Buffer): void => {
      out += b.toString();
      const m = /Serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) resolve({ child, port: Number(m[1]) });
    };
    child.stdout?.on('data', seen);
    child.stderr?.on('data', seen);
    child.once('exit', (code) => reject(new Error(`tiddlywiki --listen exited (${code}) before serving: ${out.slice(-800)}`)));
  });
}

/** Polls /status until the wiki answers it (the server prints "Serving" as it binds, before it has answered anyone). */
async function answered(url: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const r = await fetch(`${url}/status`).catch(() => undefined);
    if (r?.ok) return;
    if (Date.now() > until) throw new Error(`${url}/status did not answer within 30 s`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  return gone;
}

/** A fresh wiki (`tiddlywiki DIR --init server`) served on a free port of 127.0.0.1. */
export async function startWiki(access: Access = {}): Promise<Wiki> {
  const dir = await mkdtemp(join(tmpdir(), 'handrail-tiddly-'));
  const init = spawnSync(process.execPath, [TIDDLYWIKI, join(dir, 'wiki'), '--init', 'server'], { encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`tiddlywiki --init server failed: ${init.stderr || init.stdout}`);
  const folder = join(dir, 'wiki');
  let { child, port } = await listen(folder, 0, access);
  // Never leave a wiki behind, even when the test process ends without closing it.
  const onExit = (): void => void child.kill('SIGKILL');
  process.once('exit', onExit);
  const url = `http://127.0.0.1:${port}`;
  await answered(url);
  const api = (title: string): string => `${url}/recipes/default/tiddlers/${encodeURIComponent(title)}`;
  return {
    url,
    dir: folder,
    async tiddler(title) {
      const r = await fetch(api(title));
      if (r.status === 404) return null;
      if (!r.ok) throw new Error(`GET ${api(title)} answered ${r.status}`);
      return (await r.json()) as Record<string, unknown>;
    },
    async restart(a = {}) {
      await stopped(child);
      ({ child, port } = await listen(folder, port, a));
      await answered(url);
    },
    store: {
      async reset() {
        // The list holds every non-system tiddler (the fresh wiki has none: its pages are the plugins' shadows).
        const all = (await (await fetch(`${url}/recipes/default/tiddlers.json`)).json()) as { title: string }[];
        for (const t of all) {
          const r = await fetch(`${url}/bags/default/tiddlers/${encodeURIComponent(t.title)}`, { method: 'DELETE', headers: { 'x-requested-with': 'TiddlyWiki' } });
          if (!r.ok) throw new Error(`DELETE ${t.title} answered ${r.status}`);
        }
      },
    },
    async close() {
      process.removeListener('exit', onExit);
      await stopped(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Registers the hooks: one wiki per spec file (support/scene.ts). Its `store.reset()` is asynchronous, so a spec awaits
 * it in its own `beforeEach` rather than asking the scene for `reset`.
 */
export function wikiScene(o: Omit<SceneOptions, 'reset'> & { access?: Access } = {}, bind?: (s: Scene<Wiki>) => void): Scene<Wiki> {
  const { access, ...scene } = o;
  return appScene(() => startWiki(access), scene, bind);
}

/**
 * The judge of `verify`: the tiddler named by the plate's `title` as the wiki's own API gives it — `exists`, and its
 * `text` and `tags` fields as stored (TiddlyWiki's tags are one string, `[[two words]] one`).
 */
export function tiddlerJudge(wiki: Wiki): Judge {
  return async (req) => {
    const title = req.inputs['title'];
    if (title === undefined) return { ok: false, detail: 'the plate has no title' };
    try {
      const t = await wiki.tiddler(title);
      return { ok: true, state: t ? { exists: true, text: t['text'] ?? '', tags: t['tags'] ?? '' } : { exists: false } };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  };
}

/**
 * A browser surface for the wiki, a context of `browser`. The wiki's page is one 2.7 MB document that boots the whole
 * wiki before DOMContentLoaded (1–3 s here when the machine is quiet, over 15 s with two other suites on its two
 * cores), so its navigations may take a minute instead of the surface's 15 s.
 */
export async function wikiSurface(browser: Browser): Promise<BrowserSurface> {
  const s = await BrowserSurface.launch({ browser });
  s.page.setDefaultNavigationTimeout(60_000);
  return s;
}
