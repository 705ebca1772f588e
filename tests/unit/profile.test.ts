// HANDRAIL_PROFILE: a profiled replay says where its time went, phase by phase, and an unprofiled one ends the same way; the bench's /proc readers parse what Linux writes.
import { promises as fs, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Phases, phasesFromEnv, PROFILE_ENV } from '../../runner/profile.ts';
import { runCapability } from '../../runner/run.ts';
import { Capability } from '../../shared/schema/capability.ts';
import { cpuOfStat, kindOf, TreeSampler } from '../bench/cpu.ts';
import { MemorySurface, type MemoryApp } from '../fixtures/memory-surface.ts';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-profile-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** Two screens and one commit between them: enough for every phase of a step to happen once. */
function app(): MemoryApp {
  return {
    screens: {
      form: {
        title: 'Form',
        furniture: ["heading 'New item'"],
        elements: [{ role: 'button', name: 'Save', on: { invoke: 'saved' } }],
      },
      saved: { title: 'Saved', furniture: ["heading 'Saved'", "status 'Item saved'"], elements: [] },
    },
  };
}

function card(s: MemorySurface): Capability {
  return Capability.parse({
    schema: 'handrail.capability/v1',
    id: 'save_item',
    intent: 'Save an item.',
    surface: 'browser',
    entry: 'memory://form',
    inputs: {},
    screens: { form: s.screenRecord('form'), saved: s.screenRecord('saved') },
    targets: {
      save: {
        role: 'button',
        name: { eq: 'Save' },
        supports: ['invoke'],
        ladder: [{ rung: 'role_name', cost: 100 }],
        fingerprint: { over: ['role', 'name'], value: s.fingerprintOf('form', 'Save', ['role', 'name']) },
      },
    },
    steps: [{ id: 'save', screen: 'form', op: { verb: 'invoke' }, target: 'save', effect: { kind: 'commit', confirmed_by: { owner: 'dana' } }, no_record: true, settle: { kind: 'screen_is', screen: 'saved' }, expect: { screen_in: ['saved'] } }],
    outcomes: { success: { screens: ['saved'] } },
    lifecycle: { state: 'verified' },
  });
}

describe('a profiled replay (runner/profile.ts)', () => {
  it('times each phase of the run and of its step, and the run ends as an unprofiled one does', async () => {
    const profile = new Phases();
    const run = (n: string, p?: Phases) => {
      const s = new MemorySurface(app());
      return runCapability({
        card: card(s),
        inputs: {},
        env: {},
        surface: () => Promise.resolve(s),
        evidenceDir: path.join(tmp, n),
        journalPath: path.join(tmp, `${n}.journal`),
        allowUnapproved: true,
        ...(p ? { profile: p } : {}),
      });
    };
    const plain = await run('plain');
    const profiled = await run('profiled', profile);
    expect(plain).toMatchObject({ word: 'SUCCESS', steps_done: 1 });
    expect(profiled).toMatchObject({ word: plain.word, code: plain.code, steps_done: plain.steps_done, rungs: plain.rungs });
    expect(profile.runs).toBe(1);
    const phases = new Map(profile.entries().map((e) => [e.phase, e]));
    for (const phase of [
      'run: lease + journal open',
      'run: surface open (browser context)',
      'open the entry',
      'observe',
      'resolve (find + fingerprint)',
      'journal: dispatched (fsync)',
      'act',
      'settle (looks included)',
      'journal: observed (fsync)',
      'screenshot: capture',
      'run: evidence seal (fsync)',
      'run: journal receipt',
    ]) {
      expect(phases.get(phase)?.calls, phase).toBeGreaterThan(0);
    }
    // One commit: one dispatched line and one observed line, each fsynced.
    expect(phases.get('journal: dispatched (fsync)')?.calls).toBe(1);
    expect(phases.get('journal: observed (fsync)')?.calls).toBe(1);
    const table = profile.table();
    expect(table).toMatch(/^profile: 1 run\(s\), \d+ ms wall per run/);
    expect(table).toMatch(/\nact\s+1\.0\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d %/);
  });

  it('is on only when HANDRAIL_PROFILE is 1', () => {
    expect(phasesFromEnv({})).toBeUndefined();
    expect(phasesFromEnv({ [PROFILE_ENV]: '0' })).toBeUndefined();
    expect(phasesFromEnv({ [PROFILE_ENV]: '1' })).toBeInstanceOf(Phases);
  });

  it('adds up calls and milliseconds per phase, per run', () => {
    const p = new Phases();
    p.add('observe', 10);
    p.add('observe', 30);
    p.add('act', 20);
    p.run(100);
    p.run(100);
    expect(p.entries()).toEqual([
      { phase: 'observe', calls: 2, ms: 40 },
      { phase: 'act', calls: 1, ms: 20 },
    ]);
    // Per run: observe 1 call, 20 ms, 20 ms a call, 20 % of a 100 ms run.
    expect(p.table()).toMatch(/\nobserve\s+1\.0\s+20\.0\s+20\.0\s+20\.0 %/);
  });
});

describe('the scale bench reads /proc (tests/bench/cpu.ts)', () => {
  it('reads utime+stime and cutime+cstime in seconds, whatever the process name holds', () => {
    // Fields 14–17 are 250, 50, 1000, 200 ticks (USER_HZ 100); the name has a space and a parenthesis.
    const stat = '4242 (Chrome_Child (x)) S 4200 4242 4242 0 -1 4194560 100 0 0 0 250 50 1000 200 20 0 12 0 100 0 0';
    expect(cpuOfStat(stat)).toEqual({ own: 3, reaped: 12, ppid: 4200 });
  });

  it('tells Chromium processes by their --type and the root as the CLI', () => {
    expect(kindOf('/usr/lib/chromium/chromium --type=renderer --lang=en', false)).toBe('renderers');
    expect(kindOf('/usr/lib/chromium/chromium --type=gpu-process --disable-gpu', false)).toBe('gpu');
    expect(kindOf('/usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService', false)).toBe('other chromium');
    expect(kindOf('/usr/lib/chromium/chromium --type=zygote', false)).toBe('other chromium');
    expect(kindOf('/usr/lib/chromium/chromium --no-sandbox --remote-debugging-pipe', false)).toBe('browser');
    expect(kindOf('/usr/bin/node --import tsx runner/cli/main.ts replay', true)).toBe('cli');
  });

  // A known load, to tell which of the bench's two CPU counts is right (issue 38). Each node process burns until its
  // own CPU (process.cpuUsage, all its threads) reaches the mark, then prints it: the reported seconds are the truth.
  const burn = (s: number): string => `while((u=>u.user+u.system)(process.cpuUsage())<${s * 1e6});`;
  const said = (child: ReturnType<typeof spawn>): Promise<number[]> =>
    new Promise((done, fail) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
      child.once('error', fail);
      child.once('close', () => done(out.trim().split(/\s+/).filter(Boolean).map(Number)));
    });

  it('counts a child that burns 1 CPU-second on two threads once, as the kernel does', async () => {
    const worker = `${burn(1)}`;
    const child = spawn(process.execPath, ['-e', `const {Worker}=require('node:worker_threads');let n=2;for(let i=0;i<2;i++)new Worker(${JSON.stringify(worker)},{eval:true}).on('exit',()=>--n||(console.log((u=>(u.user+u.system)/1e6)(process.cpuUsage())),setTimeout(()=>{},500)))`]);
    // The child idles 500 ms once it has burnt: an ended process counts only up to its last sample, and on a loaded
    // machine the last sample before an exit can be more than the 0.05 s this test allows before it.
    const sampler = new TreeSampler(child.pid as number, 100);
    const [own] = await said(child);
    const r = sampler.stop();
    expect(own).toBeGreaterThanOrEqual(1);
    expect(r.sampledS).toBeGreaterThan(own! - 0.05);
    expect(r.sampledS).toBeLessThan(own! + 0.05);
    expect(r.reapedS).toBeGreaterThan(own! - 0.05);
  }, 60_000);

  it('counts a child its parent never waits for, where the kernel\'s count of reaped children misses it', async () => {
    // As Chromium's browser process leaves its zygotes: the grandchild burns 1 CPU-s, the parent ends without waiting
    // for it, and the grandchild ends after — init reaps it, so its CPU never reaches this process's cutime.
    const grandchild = `${burn(1)}console.log((u=>(u.user+u.system)/1e6)(process.cpuUsage()));process.stdout.write('',()=>setTimeout(()=>{},300))`;
    const parent =
      `const c=require('node:child_process').spawn(process.execPath,['-e',${JSON.stringify(grandchild)}],{stdio:['ignore','pipe','inherit']});` +
      `c.stdout.once('data',d=>{process.stdout.write(String(d).trim()+' '+(u=>(u.user+u.system)/1e6)(process.cpuUsage())+'\\n',()=>process.exit(0))})`;
    const child = spawn(process.execPath, ['-e', parent]);
    const sampler = new TreeSampler(child.pid as number, 50);
    const [grand, own] = await said(child);
    const r = sampler.stop();
    expect(grand).toBeGreaterThanOrEqual(1);
    // The sampler saw both processes burn; the kernel's count has the parent only.
    expect(r.sampledS).toBeGreaterThan(grand! + own! - 0.1);
    expect(r.sampledS).toBeLessThan(grand! + own! + 0.1);
    expect(r.reapedS).toBeLessThan(own! + 0.1);
  }, 60_000);

  it('counts a process already running when sampling starts from then, not from its start', async () => {
    // The child burns 0.4 s of CPU, says so, then idles: sampled after that, it has used next to nothing.
    const child = spawn(process.execPath, ['-e', "const t=process.cpuUsage();while(process.cpuUsage(t).user<4e5);console.log('busy done');setInterval(()=>{},1e3)"]);
    try {
      await new Promise<void>((done, fail) => {
        child.stdout.once('data', () => done());
        child.once('exit', (code) => fail(new Error(`the busy child exited (${code})`)));
      });
      const sampler = new TreeSampler(child.pid as number, 60_000);
      sampler.sample();
      const r = sampler.stop(false);
      expect(cpuOfStat(readFileSync(`/proc/${child.pid}/stat`, 'utf8')).own).toBeGreaterThanOrEqual(0.3);
      expect(r.seconds.cli).toBeLessThan(0.1);
      expect(r.processes).toBe(1);
    } finally {
      child.kill();
    }
  });
});
