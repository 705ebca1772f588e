// Profile of one walker observe on the bench's generated page: CDP Profiler around observePage, self time summed
// by function, top rows printed. Run alone: npx tsx tests/bench/walker-profile.ts [elements] [observes] [rows] [--in-page]
// [--casedesk] (--casedesk: CASEDESK's list with [elements] cases instead of the generated page)
// (--in-page: the observes run in one evaluate, so only the walk and its wire form are sampled, not the round trips)
// (--transfer: what carrying an observation out of the page costs, as plain JSON and in the wire form, [rows] rounds of
// [observes] observes each, the two forms interleaved: CPU per observe of this process, the browser and the renderer)
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Frame } from 'playwright-core';
import { findChromium } from '../../runner/browser/chromium.ts';
import { ensureWalker, observePage } from '../../runner/browser/observe.ts';
import { fromWire } from '../../runner/browser/wire.ts';
import type { DocumentObservation, InPage } from '../../shared/dom/api.ts';
import { cpuOfStat, kindOf } from './cpu.ts';
import { median } from './stats.ts';
import { generatePage, openCaseDeskList } from './walker.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  fn: string;
  ms: number;
  share: number;
}

/** Self time per function (name and line), summed over every node of that function, largest first. */
export function selfTimes(profile: Profile): SelfTime[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node) return;
    const f = node.callFrame;
    const fn = `${f.functionName || '(anonymous)'}${f.url || f.lineNumber >= 0 ? `:${f.lineNumber + 1}` : ''}`;
    ms.set(fn, (ms.get(fn) ?? 0) + dt);
    total += dt;
  });
  return [...ms].map(([fn, t]) => ({ fn, ms: t, share: total ? t / total : 0 })).sort((a, b) => b.ms - a.ms);
}

export async function profileWalker(
  elements: number,
  observes: number,
  inPage = false,
  caseDesk = false,
): Promise<{ rows: SelfTime[]; inPageMs: number }> {
  const browser = await chromium.launch(findChromium().launchOptions);
  let closeDesk: (() => Promise<void>) | undefined;
  try {
    let page;
    if (caseDesk) {
      const desk = await openCaseDeskList(browser, elements);
      closeDesk = desk.close;
      page = desk.page;
    } else {
      page = await browser.newPage();
      await page.setContent(generatePage(elements));
    }
    await ensureWalker(page.mainFrame());
    await observePage(page);
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
    await cdp.send('Profiler.start');
    if (inPage) {
      await page.evaluate((n) => {
        // What the runner asks for: the observation in its wire form, as JSON (docs/design/walker.md, "The walker", "The wire form").
        const api = (globalThis as unknown as { __handrail: { observeWire(): string } }).__handrail;
        for (let i = 0; i < n; i++) api.observeWire();
      }, observes);
    } else for (let i = 0; i < observes; i++) await observePage(page);
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
    // The walk alone, in the page, without the round trip or the JSON crossing.
    const inPageMs = await page.evaluate(() => {
      const api = (globalThis as unknown as { __handrail: { observe(): unknown } }).__handrail;
      const t: number[] = [];
      for (let i = 0; i < 5; i++) {
        const s = performance.now();
        api.observe();
        t.push(performance.now() - s);
      }
      return t.sort((a, b) => a - b)[2]!;
    });
    return { rows: selfTimes(profile).map((r) => ({ ...r, ms: r.ms / observes })), inPageMs };
  } finally {
    await closeDesk?.();
    await browser.close();
  }
}

/** How an observation crosses from the page: `plain` as the runner carried it before the wire form, `wire` as it does now. */
export type Form = 'plain' | 'wire';

type WithWalker = typeof globalThis & { __handrail: InPage };

/** One observe of the frame's document in a form: the evaluate that brings it out, then its parse (and expansion). */
async function observeAs(frame: Frame, form: Form): Promise<DocumentObservation> {
  if (form === 'plain') return JSON.parse(await frame.evaluate(() => JSON.stringify((globalThis as WithWalker).__handrail.observe()))) as DocumentObservation;
  return fromWire(JSON.parse(await frame.evaluate(() => (globalThis as WithWalker).__handrail.observeWire())));
}

/** CPU seconds so far of every process below this one (the browser, its renderers and helpers), by pid, with its kind. */
function childrenCpu(): Map<number, { kind: string; own: number }> {
  const stats = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      stats.set(Number(name), readFileSync(`/proc/${name}/stat`, 'utf8'));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const below = new Set([process.pid]);
  const out = new Map<number, { kind: string; own: number }>();
  // Parents have lower pids than their children here only by luck: repeat until no new descendant turns up.
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, stat] of stats) {
      const { own, ppid } = cpuOfStat(stat);
      if (below.has(pid) || !below.has(ppid)) continue;
      below.add(pid);
      grew = true;
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        // Ended: counted by kind 'browser' below, its CPU as last read.
      }
      out.set(pid, { kind: kindOf(cmdline, false), own });
    }
  }
  return out;
}

export interface TransferCost {
  form: Form;
  /** The JSON that crosses, in characters. */
  chars: number;
  /** Median wall time of one observe, ms. */
  wallMs: number;
  /** CPU per observe, ms: this process (Playwright's client and server, the parse), the browser's other processes, the renderer. */
  nodeMs: number;
  browserMs: number;
  rendererMs: number;
}

/**
 * Both forms on the bench page, in `rounds` rounds of `observes` observes per form, the order of the forms swapped each
 * round. CPU is read from /proc (tests/bench/cpu.ts) around each block, so it holds under other tenants' load where
 * wall time does not: what the wire form saves is the CPU the carrying takes, in whichever process it is spent.
 */
export async function transferCost(elements: number, observes: number, rounds: number): Promise<TransferCost[]> {
  const browser = await chromium.launch(findChromium().launchOptions);
  try {
    const page = await browser.newPage();
    await page.setContent(generatePage(elements));
    const frame = page.mainFrame();
    await ensureWalker(frame);
    const forms: Form[] = ['plain', 'wire'];
    const chars = {
      plain: (await frame.evaluate(() => JSON.stringify((globalThis as WithWalker).__handrail.observe()))).length,
      wire: (await frame.evaluate(() => (globalThis as WithWalker).__handrail.observeWire())).length,
    };
    if (JSON.stringify(await observeAs(frame, 'plain')) !== JSON.stringify(await observeAs(frame, 'wire'))) throw new Error('the wire form did not expand into the observation the page made');
    const wall: Record<Form, number[]> = { plain: [], wire: [] };
    const cpu: Record<Form, { node: number; browser: number; renderer: number }> = {
      plain: { node: 0, browser: 0, renderer: 0 },
      wire: { node: 0, browser: 0, renderer: 0 },
    };
    for (let r = 0; r < rounds; r++) {
      for (const form of r % 2 ? [...forms].reverse() : forms) {
        const before = childrenCpu();
        const self = process.cpuUsage();
        for (let i = 0; i < observes; i++) {
          const t = performance.now();
          await observeAs(frame, form);
          wall[form].push(performance.now() - t);
        }
        const used = process.cpuUsage(self);
        cpu[form].node += (used.user + used.system) / 1e6;
        for (const [pid, now] of childrenCpu()) {
          const spent = now.own - (before.get(pid)?.own ?? 0);
          if (now.kind === 'renderers') cpu[form].renderer += spent;
          else cpu[form].browser += spent;
        }
      }
    }
    const per = (s: number): number => (s * 1000) / (observes * rounds);
    return forms.map((form) => ({
      form,
      chars: chars[form],
      wallMs: median(wall[form]),
      nodeMs: per(cpu[form].node),
      browserMs: per(cpu[form].browser),
      rendererMs: per(cpu[form].renderer),
    }));
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const elements = Number(process.argv[2] ?? 5000);
  const observes = Number(process.argv[3] ?? 5);
  const top = Number(process.argv[4] ?? 10);
  const inPage = process.argv.includes('--in-page');
  if (process.argv.includes('--transfer')) {
    process.stdout.write(`carrying one observe of a ${elements}-element page out (${top} rounds of ${observes} per form; CPU per observe):\n`);
    for (const c of await transferCost(elements, observes, top)) {
      process.stdout.write(
        `  ${c.form.padEnd(5)} ${String(c.chars).padStart(7)} chars  wall median ${c.wallMs.toFixed(1).padStart(6)} ms  ` +
          `cpu: node ${c.nodeMs.toFixed(1)} ms, browser ${c.browserMs.toFixed(1)} ms, renderer ${c.rendererMs.toFixed(1)} ms, ` +
          `total ${(c.nodeMs + c.browserMs + c.rendererMs).toFixed(1)} ms\n`,
      );
    }
  } else {
    const { rows, inPageMs } = await profileWalker(elements, observes, inPage, process.argv.includes('--casedesk'));
    process.stdout.write(`walker in-page observe median ${inPageMs.toFixed(1)} ms; self time per observe (${observes} observes):\n`);
    for (const r of rows.slice(0, top)) process.stdout.write(`  ${r.ms.toFixed(2).padStart(7)} ms  ${(r.share * 100).toFixed(1).padStart(5)}%  ${r.fn}\n`);
  }
}
