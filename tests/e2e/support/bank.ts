// Test support: PLUMBLINE on 127.0.0.1 for a whole spec file with a scratch directory, and before each test a fresh
// seed and a fresh $HANDRAIL_HOME (never the real one, and no test answered from another's journal).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { startBank, type Bank } from '../../../demo/plumbline/server.ts';

export interface BankScene {
  bank: Bank;
  scratch: string;
  home: string;
}

/** Registers the hooks; the fields are set once the file's first hook has run. */
export function bankScene(prefix: string, operatorPassword: string): BankScene {
  const scene = {} as BankScene;
  test.beforeAll(async () => {
    scene.bank = await startBank({ port: 0, operatorPassword });
    scene.scratch = await mkdtemp(join(tmpdir(), prefix));
  });
  test.afterAll(async () => {
    await scene.bank?.close();
    if (scene.scratch) await rm(scene.scratch, { recursive: true, force: true });
  });
  test.beforeEach(async () => {
    scene.bank.store.reset();
    scene.home = await mkdtemp(join(scene.scratch, 'home-'));
  });
  return scene;
}
