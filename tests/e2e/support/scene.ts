// Test support: one demo app on 127.0.0.1 for a spec file (or for each test), with what its tests share beside it — a
// scratch directory, a fresh $HANDRAIL_HOME per test, a Chromium of its own, the store reset before each test — as
// the hooks every such spec used to write out (docs/design/demo.md, "Test scenes").
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from '@playwright/test';
import { chromium, type Browser } from 'playwright-core';
import { findChromium } from '../../../runner/browser/chromium.ts';

/** What an app's handle offers a test's hooks: PLUMBLINE's `Bank` and CASEDESK's `Desk` have a store to reset too. */
export interface App {
  store?: { reset(): void };
  close(): Promise<void>;
}

export interface SceneOptions {
  /** A scratch directory (this `mkdtemp` prefix) made with the app and removed with it. */
  scratch?: string;
  /** The app's store reset before each test. */
  reset?: boolean;
  /** A fresh $HANDRAIL_HOME under the scratch directory before each test (never the real one, and no test answered from another's journal). */
  home?: boolean;
  /** A Chromium launched with the app, as the runner launches it, for surfaces the tests open on it. */
  browser?: boolean;
  /** The app (and its scratch directory) started before each test and closed after it, not once for the file. */
  each?: boolean;
}

/** Splits a spec's options into the scene's and the app's own (its `startBank` or `startCaseDesk` options). */
export function splitScene<T extends SceneOptions>(o: T): [SceneOptions, Omit<T, keyof SceneOptions>] {
  const { scratch, reset, home, browser, each, ...app } = o;
  const scene: SceneOptions = {};
  if (scratch !== undefined) scene.scratch = scratch;
  if (reset !== undefined) scene.reset = reset;
  if (home !== undefined) scene.home = home;
  if (browser !== undefined) scene.browser = browser;
  if (each !== undefined) scene.each = each;
  return [scene, app];
}

export interface Scene<A extends App> {
  app: A;
  scratch: string;
  home: string;
  browser: Browser;
}

/**
 * Registers the hooks; the fields are set once the file's first hook has run. `bind` is handed the scene whenever a
 * hook has changed it, so a spec may keep its own short names (`(s) => ({ app: bank, scratch } = s)`).
 */
export function appScene<A extends App>(start: () => Promise<A>, o: SceneOptions = {}, bind: (s: Scene<A>) => void = () => undefined): Scene<A> {
  if (o.home && !o.scratch) throw new Error('a per-test $HANDRAIL_HOME lives in the scratch directory: give `scratch` a prefix');
  const scene = {} as Scene<A>;
  const up = async (): Promise<void> => {
    scene.app = await start();
    if (o.browser) scene.browser = await chromium.launch(findChromium().launchOptions);
    if (o.scratch) scene.scratch = await mkdtemp(join(tmpdir(), o.scratch));
    bind(scene);
  };
  const down = async (): Promise<void> => {
    await scene.browser?.close();
    await scene.app?.close();
    if (scene.scratch) await rm(scene.scratch, { recursive: true, force: true });
  };
  if (o.each) {
    test.beforeEach(up);
    test.afterEach(down);
  } else {
    test.beforeAll(up);
    test.afterAll(down);
  }
  if (o.reset || o.home) {
    test.beforeEach(async () => {
      if (o.reset) {
        if (!scene.app.store) throw new Error('the scene was asked to reset a store, and this app has none');
        scene.app.store.reset();
      }
      if (o.home) scene.home = await mkdtemp(join(scene.scratch, 'home-'));
      bind(scene);
    });
  }
  return scene;
}
