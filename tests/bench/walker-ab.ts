// Two walkers side by side in one page: the one in this tree and the one at a git revision, each bundled as the
// runner bundles it, their observes interleaved on the bench's generated page, so other tenants' load falls on both
// alike. Prints whether their wire forms are the same bytes, and per observe the renderer's CPU and the wall time.
// Run alone: npx tsx tests/bench/walker-ab.ts <rev> [elements] [batches] [observes per batch]
// (docs/design/walker.md, "The walker", "Measuring a change")
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { cpuOfStat } from './cpu.ts';
import { generatePage } from './walker.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WalkerAB {
  rev: string;
  elements: number;
  /** The two walkers' `observeWire()` gave the same string. */
  same: boolean;
  /** Per observe, averaged over the batches: renderer CPU (from /proc) and wall time, ms. */
  base: { cpuMs: number; wallMs: number };
  tree: { cpuMs: number; wallMs: number };
}

/** The walker of a directory holding `shared/dom`, as a script that sets `globalThis[name]` to its in-page API. */
async function bundleAt(root: string, name: string): Promise<string> {
  const out = await build({
    stdin: { contents: `import { createInPage } from './shared/dom/index.ts'; globalThis.${name} = createInPage(document);`, resolveDir: root, sourcefile: 'ab-entry.ts', loader: 'ts' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'chrome110',
  });
  const file = out.outputFiles[0];
  if (!file) throw new Error(`esbuild produced no walker bundle for ${root}`);
  return file.text;
}

/** `shared` at `rev`, unpacked into a temporary directory: `shared/dom` and the modules of `shared` it imports
 *  (shared/menu-path.ts); the types it imports from shared/schema are erased. */
function checkout(rev: string): string {
  let tar: Buffer;
  try {
    tar = execFileSync('git', ['archive', '--format=tar', rev, 'shared'], { cwd: ROOT, maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch {
    throw new Error(`no shared/dom at git revision ${JSON.stringify(rev)} (git archive refused it)`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'walker-ab-'));
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  return dir;
}

/** The renderer processes of the browser this process started (descendants with `--type=renderer`). */
function ourRenderers(): number[] {
  const parent = new Map<number, number>();
  const renderer = new Set<number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      parent.set(Number(name), cpuOfStat(readFileSync(`/proc/${name}/stat`, 'utf8')).ppid);
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('--type=renderer')) renderer.add(Number(name));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const below = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (below.has(pid) || !below.has(ppid)) continue;
      below.add(pid);
      grew = true;
    }
  }
  return [...renderer].filter((pid) => below.has(pid));
}

function cpuSeconds(pids: readonly number[]): number {
  let s = 0;
  for (const pid of pids) {
    try {
      s += cpuOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).own;
    } catch {
      // Ended: it no longer counts.
    }
  }
  return s;
}

export async function walkerAB(rev: string, elements = 5000, batches = 10, perBatch = 40): Promise<WalkerAB> {
  const dir = checkout(rev);
  const browser = await chromium.launch(findChromium().launchOptions);
  try {
    const page = await browser.newPage();
    await page.setContent(generatePage(elements));
    await page.evaluate(await bundleAt(dir, '__walkerBase'));
    await page.evaluate(await bundleAt(ROOT, '__walkerTree'));
    const same = (await page.evaluate('globalThis.__walkerBase.observeWire() === globalThis.__walkerTree.observeWire()')) === true;
    const renderers = ourRenderers();
    const batch = async (name: string): Promise<{ cpuMs: number; wallMs: number }> => {
      const cpu = cpuSeconds(renderers);
      const t = performance.now();
      await page.evaluate(`(() => { for (let i = 0; i < ${perBatch}; i++) globalThis.${name}.observeWire(); })()`);
      return { cpuMs: ((cpuSeconds(renderers) - cpu) * 1000) / perBatch, wallMs: (performance.now() - t) / perBatch };
    };
    await batch('__walkerBase');
    await batch('__walkerTree');
    const sum = { base: { cpuMs: 0, wallMs: 0 }, tree: { cpuMs: 0, wallMs: 0 } };
    for (let b = 0; b < batches; b++) {
      for (const side of b % 2 ? (['base', 'tree'] as const) : (['tree', 'base'] as const)) {
        const r = await batch(side === 'base' ? '__walkerBase' : '__walkerTree');
        sum[side].cpuMs += r.cpuMs / batches;
        sum[side].wallMs += r.wallMs / batches;
      }
    }
    return { rev, elements, same, ...sum };
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rev = process.argv[2];
  if (!rev) {
    process.stderr.write('usage: npx tsx tests/bench/walker-ab.ts <rev> [elements] [batches] [observes per batch]\n');
    process.exit(2);
  }
  let r: WalkerAB;
  try {
    r = await walkerAB(rev, Number(process.argv[3] ?? 5000), Number(process.argv[4] ?? 10), Number(process.argv[5] ?? 40));
  } catch (err) {
    process.stderr.write(`walker-ab: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  }
  process.stdout.write(
    `walker at ${r.rev} vs this tree, ${r.elements}-element page: wire forms ${r.same ? 'the same bytes' : 'DIFFER'}\n` +
      `  renderer CPU per observe ${r.base.cpuMs.toFixed(2)} → ${r.tree.cpuMs.toFixed(2)} ms (${(r.tree.cpuMs / r.base.cpuMs).toFixed(3)}×), ` +
      `wall ${r.base.wallMs.toFixed(2)} → ${r.tree.wallMs.toFixed(2)} ms (${(r.tree.wallMs / r.base.wallMs).toFixed(3)}×)\n`,
  );
  if (!r.same) process.exitCode = 1;
}
