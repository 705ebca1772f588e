// Benchmark P5: what an MCP call costs beyond the replay itself. `handrail serve --warm` runs as an agent's host
// runs it (a child process on stdio, the SDK's client); each call's overhead is its wall time at the client minus
// the receipt's `duration_ms` (the engine's own time). In the same run, interleaved, the same card is replayed
// in-process in a warm browser (`runCapability`, a fresh context each time): the floor an MCP call is compared to.
// Then 16 calls with distinct keys at once, against the pool size. Every call has its own key (member, share,
// reason), and the bank is reset before each, so every call really presses Post Hold.
// Run alone: npx tsx tests/bench/mcp.ts [calls] [pool]
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chromium } from 'playwright-core';
import { startBank, type Bank } from '../../demo/plumbline/server.ts';
import { findChromium } from '../../runner/browser/chromium.ts';
import { BrowserSurface } from '../../runner/browser/surface.ts';
import { readCard } from '../../runner/cli/replay.ts';
import type { Receipt } from '../../runner/mcp/tools.ts';
import { runCapability } from '../../runner/run.ts';
import { median, percentile } from './stats.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const CARD = join(ROOT, 'capabilities/plumbline-place-hold.json');
const REASONS = ['LEGAL', 'FRAUD_REVIEW', 'GARNISHMENT', 'DECEASED', 'OTHER'];

export interface McpBench {
  calls: number;
  pool: number;
  /** Spawn to a listed tool, and spawn to the first call's answer (the browser warmed meanwhile). */
  readyMs: number;
  firstCallMs: number;
  overheadMedianMs: number;
  overheadP95Ms: number;
  callMedianMs: number;
  replayMedianMs: number;
  /** MCP call median / in-process replay median, measured interleaved. */
  ratio: number;
  /** 16 calls at once: their wall time against 16 sequential calls' (median × 16). */
  concurrent: number;
  concurrentWallMs: number;
  speedup: number;
  serverRssMb: number;
}

/** Every (member, share, reason) whose share has no seeded hold: each is a key of its own. */
/** Every distinct plate PLUMBLINE can hold from a fresh seed, for each reason in turn. */
export function plates(bank: Bank): Record<string, string>[] {
  const members = ['400118', '400337', '400445', ...Array.from({ length: 36 }, (_, i) => String(400500 + i * 13))];
  const out: Record<string, string>[] = [];
  for (const reason of REASONS) {
    for (const m of members) {
      for (const s of bank.store.sharesOf(m)) if (!bank.store.hold(s.id)) out.push({ operator_id: 'OP1001', member_number: m, share_id: s.id, reason });
    }
  }
  return out;
}

async function rssMb(pid: number | null): Promise<number> {
  if (pid === null) return NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export async function benchMcp(calls = 100, pool = 4): Promise<McpBench> {
  const password = `bench-${randomBytes(4).toString('hex')}`;
  const bank = await startBank({ port: 0, operatorPassword: password });
  const dir = await mkdtemp(join(tmpdir(), 'handrail-bench-mcp-'));
  const loaded = await readCard(CARD);
  if (!loaded.ok) throw new Error(loaded.message);
  const all = plates(bank);
  if (all.length < calls + 2 * 16 + 2) throw new Error(`only ${all.length} distinct plates for ${calls} calls`);
  let next = 0;
  const plate = (): Record<string, string> => all[next++] as Record<string, string>;

  const began = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin/handrail.mjs'), 'serve', join(ROOT, 'capabilities'), '--warm', '--concurrency', String(pool), '--evidence-dir', join(dir, 'runs')],
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir, HANDRAIL_HOME: join(dir, 'home'), BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: password },
    stderr: 'ignore',
    cwd: ROOT,
  });
  const client = new Client({ name: 'bench', version: '0' });
  const browser = await chromium.launch(findChromium().launchOptions);
  try {
    await client.connect(transport);
    await client.listTools();
    const readyMs = performance.now() - began;
    const call = async (): Promise<{ wall: number; receipt: Receipt }> => {
      const t = performance.now();
      const r = (await client.callTool({ name: 'plumbline_place_hold', arguments: plate() })) as CallToolResult;
      const wall = performance.now() - t;
      const receipt = r.structuredContent as Receipt;
      if (receipt.word !== 'SUCCESS' || receipt.from_journal) throw new Error(`bench call ended ${receipt.word} ${receipt.code}: ${receipt.message}`);
      return { wall, receipt };
    };
    bank.store.reset();
    await call();
    const firstCallMs = performance.now() - began;
    const replay = async (): Promise<number> => {
      const t = performance.now();
      const r = await runCapability({
        card: loaded.card,
        inputs: { ...plate(), password },
        env: { BASE_URL: bank.url },
        surface: () => BrowserSurface.launch({ browser }),
        evidenceDir: join(dir, 'replay', randomBytes(4).toString('hex')),
        journalPath: join(dir, `${randomBytes(4).toString('hex')}.journal`),
      });
      if (r.word !== 'SUCCESS') throw new Error(`bench replay ended ${r.word} ${r.code}: ${r.message}`);
      return performance.now() - t;
    };
    bank.store.reset();
    await replay();

    const overhead: number[] = [];
    const wall: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < calls; i++) {
      // Alternate which goes first so neither always gets the warmer machine.
      for (const which of i % 2 === 0 ? (['m', 'r'] as const) : (['r', 'm'] as const)) {
        bank.store.reset();
        if (which === 'r') {
          floor.push(await replay());
          continue;
        }
        const c = await call();
        wall.push(c.wall);
        overhead.push(c.wall - c.receipt.duration_ms);
      }
    }
    const serverRssMb = await rssMb(transport.pid);

    const concurrent = 16;
    bank.store.reset();
    const t = performance.now();
    await Promise.all(Array.from({ length: concurrent }, () => call()));
    const concurrentWallMs = performance.now() - t;
    const callMedianMs = median(wall);
    return {
      calls,
      pool,
      readyMs,
      firstCallMs,
      overheadMedianMs: median(overhead),
      overheadP95Ms: percentile(overhead, 95),
      callMedianMs,
      replayMedianMs: median(floor),
      ratio: callMedianMs / median(floor),
      concurrent,
      concurrentWallMs,
      speedup: (callMedianMs * concurrent) / concurrentWallMs,
      serverRssMb,
    };
  } finally {
    await client.close().catch(() => undefined);
    await browser.close();
    await bank.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export function describeMcp(b: McpBench): string {
  return (
    `mcp (P5): ${b.calls} calls over stdio to \`handrail serve --warm\` (pool ${b.pool}): overhead beyond the replay ` +
    `median ${b.overheadMedianMs.toFixed(0)} ms, p95 ${b.overheadP95Ms.toFixed(0)} ms (targets ≤ 50 / ≤ 150); call median ` +
    `${b.callMedianMs.toFixed(0)} ms vs in-process warm replay ${b.replayMedianMs.toFixed(0)} ms → ratio ${b.ratio.toFixed(2)}; ` +
    `ready in ${b.readyMs.toFixed(0)} ms, first answer at ${b.firstCallMs.toFixed(0)} ms; ${b.concurrent} calls at once in ` +
    `${b.concurrentWallMs.toFixed(0)} ms → ${b.speedup.toFixed(2)}× one-at-a-time; server RSS ${b.serverRssMb.toFixed(0)} MB (Node only, not Chromium)\n`
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const b = await benchMcp(Number(process.argv[2] ?? 100), Number(process.argv[3] ?? 4));
  process.stdout.write(describeMcp(b));
}
