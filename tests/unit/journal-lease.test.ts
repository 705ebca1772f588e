// One process per key: the O_EXCL lease lets exactly one of many contenders in, makes the others wait (bounded) or answer BUSY, is broken only when its holder is provably dead, and never blocks another key.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Lease, LeaseInfo, procStart, staleReason } from '../../runner/lease.ts';

let tmp: string;
beforeEach(async () => {
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'handrail-lease-'));
});
afterEach(async () => {
  await fs.rm(tmp, { recursive: true, force: true });
});

/** A pid that existed and is gone: a child that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.on('close', r));
  return child.pid ?? 999_999;
}

const info = (over: Partial<LeaseInfo>): LeaseInfo => ({
  pid: process.pid,
  host: os.hostname(),
  proc_start: procStart(process.pid),
  started: new Date().toISOString(),
  nonce: 'n1',
  what: 'test',
  ...over,
});

describe('Lease', () => {
  it('of many contenders at once exactly one wins; after release the next one gets it', async () => {
    const file = path.join(tmp, 'locks', 'k.lock');
    const all = await Promise.all(Array.from({ length: 8 }, (_, i) => Lease.acquire(file, { what: `c${i}` })));
    const won = all.filter((a) => a.ok);
    expect(won).toHaveLength(1);
    const lost = all.find((a) => !a.ok);
    expect(lost).toMatchObject({ ok: false, holder: { pid: process.pid } });
    if (won[0]?.ok) await won[0].lease.release();
    const next = await Lease.acquire(file, { what: 'next' });
    expect(next.ok).toBe(true);
    if (next.ok) await next.lease.release();
    await expect(fs.stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('--wait: a second contender waits for the holder, bounded; without enough wait it is refused', async () => {
    const file = path.join(tmp, 'k.lock');
    const first = await Lease.acquire(file, { what: 'first' });
    if (!first.ok) throw new Error('first must win');
    const began = Date.now();
    expect((await Lease.acquire(file, { what: 'impatient', waitMs: 150 })).ok).toBe(false);
    expect(Date.now() - began).toBeGreaterThanOrEqual(140);
    setTimeout(() => void first.lease.release(), 200);
    const patient = await Lease.acquire(file, { what: 'patient', waitMs: 5_000 });
    expect(patient.ok).toBe(true);
    if (patient.ok) await patient.lease.release();
  });

  it('different keys do not block each other', async () => {
    const a = await Lease.acquire(path.join(tmp, 'a.lock'), { what: 'a' });
    const b = await Lease.acquire(path.join(tmp, 'b.lock'), { what: 'b' });
    expect([a.ok, b.ok]).toEqual([true, true]);
  });

  it('breaks a lease whose holder died on this host, and says so', async () => {
    const file = path.join(tmp, 'k.lock');
    await fs.writeFile(file, JSON.stringify(info({ pid: await deadPid(), nonce: 'dead' })));
    const said: string[] = [];
    const got = await Lease.acquire(file, { what: 'heir', log: (l) => said.push(l) });
    expect(got.ok).toBe(true);
    expect(said.join('\n')).toMatch(/broke a stale lease .*holder pid \d+ is dead/);
  });

  it('stale rules: a live holder is not stale; a reused pid is; another host never is; an unreadable lease only after its grace', async () => {
    expect(staleReason(info({}), 0)).toBeNull();
    expect(staleReason(info({ proc_start: '1' }), 0)).toMatch(/another process/);
    expect(staleReason(info({ host: 'elsewhere', pid: await deadPid() }), 0)).toBeNull();
    expect(staleReason(null, 100)).toBeNull();
    expect(staleReason(null, 60_000)).toMatch(/unreadable/);
  });

  it('never breaks a live holder\'s lease, even when it looks odd', async () => {
    const file = path.join(tmp, 'k.lock');
    await fs.writeFile(file, JSON.stringify(info({ nonce: 'alive' })));
    const got = await Lease.acquire(file, { what: 'intruder', waitMs: 100 });
    expect(got.ok).toBe(false);
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ nonce: 'alive' });
  });

  it('release removes only its own lease, not one another process took after it was broken', async () => {
    const file = path.join(tmp, 'k.lock');
    const mine = await Lease.acquire(file, { what: 'mine' });
    if (!mine.ok) throw new Error('must win');
    await fs.writeFile(file, JSON.stringify(info({ nonce: 'someone-else' })));
    await mine.lease.release();
    expect(JSON.parse(await fs.readFile(file, 'utf8'))).toMatchObject({ nonce: 'someone-else' });
  });
});
