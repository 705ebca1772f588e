// `npx tsx scripts/reverify-cards.ts [--from OBSERVER] [card-file…]`: verifies every shipped browser card again and
// approves it again under the name that approved it, each against a fresh PLUMBLINE or CASEDESK on 127.0.0.1. For a
// walker whose version was bumped (shared/dom/version.ts) it first takes each target's fingerprint again: one replay
// with the fingerprints' values left out records the control each target resolves to, the recorded value must be
// that control's fingerprint under the old observer (`--from`, default the current one: nothing was bumped), so a
// control whose role, name, verbs or ancestors changed stops the card instead of being signed again, and the new
// value is its fingerprint under the current one (a target that resolves to no control, a table read as rows, has
// its fingerprint checked by no replay and keeps it). Then `verify` (3 plates, the card's judge), then `approve`.
// Prints one line per card; exit 1 when any card was not re-approved (the others are written). A card whose content
// did not change keeps its approval (verify still writes its new reliability figure).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { DEMO_PASSWORD, startCaseDesk } from '../demo/casedesk/server.ts';
import { startBank } from '../demo/plumbline/server.ts';
import { findChromium } from '../runner/browser/chromium.ts';
import { BrowserSurface } from '../runner/browser/surface.ts';
import { approve } from '../runner/cli/approve.ts';
import { judgeFrom } from '../runner/judge.ts';
import { runCapability } from '../runner/run.ts';
import { verify, writeLifecycle } from '../runner/verify.ts';
import { WALKER_VERSION } from '../shared/dom/version.ts';
import { fingerprint } from '../shared/fingerprint.ts';
import { loadCapability, type Capability } from '../shared/schema/index.ts';
import type { Control } from '../shared/schema/observation.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PLUMBLINE_PASSWORD = 'plumb-2026';

/** How one card is verified: its app, its judge (a URL template under the app's origin), its plates. */
interface Plan {
  app: 'casedesk' | 'plumbline';
  judge: string;
  /** Inputs every plate shares. */
  fixed: Record<string, string>;
  /** Three plates, each a write (or a read) of its own, on one fresh app. */
  plates: Record<string, string>[];
}

const CASES = ['Water damage, 14 Elm Street', 'Windscreen chip on a delivery van', 'Stolen bicycle from a locked shed'];
const CLERK = { user: 'clerk' };

/** The shipped browser cards with a verification (the README's commands for each, as data). */
const PLANS: Readonly<Record<string, Plan>> = {
  'capabilities/casedesk-add-case.json': {
    app: 'casedesk', judge: '/_judge/added?title={{title}}', fixed: CLERK,
    plates: ['Burst pipe in a top-floor flat', 'Fallen fence after a storm', 'Cracked bay window'].map((title) => ({ title })),
  },
  'capabilities/casedesk-assign-case.json': {
    app: 'casedesk', judge: '/_judge/titled?title={{case_title}}', fixed: CLERK,
    plates: CASES.map((case_title, i) => ({ case_title, assignee: ['Eun-ji Park', 'Bram Nieuwenhuis', 'Dana Kowalski'][i] ?? '' })),
  },
  'capabilities/casedesk-close-case.json': {
    app: 'casedesk', judge: '/_judge/titled?title={{case_title}}', fixed: CLERK, plates: CASES.map((case_title) => ({ case_title })),
  },
  'capabilities/casedesk-open-cases.json': {
    app: 'casedesk', judge: '/_judge/open-cases?assignee={{assignee}}', fixed: CLERK,
    plates: ['Unassigned', 'Ada Okafor', 'Chidi Eze'].map((assignee) => ({ assignee })),
  },
  'capabilities/casedesk-rename-case.json': {
    app: 'casedesk', judge: '/_judge/titled?title={{new_title}}', fixed: CLERK,
    plates: CASES.map((case_title) => ({ case_title, new_title: `${case_title} (renamed)` })),
  },
  'capabilities/casedesk-rename-inline.json': {
    app: 'casedesk', judge: '/_judge/titled?title={{new_title}}', fixed: CLERK,
    plates: CASES.map((case_title) => ({ case_title, new_title: `${case_title} (renamed in place)` })),
  },
  'capabilities/plumbline-member-shares.json': {
    app: 'plumbline', judge: '/_judge/share-rows/{{member_number}}', fixed: { operator_id: 'OP1001' },
    plates: ['400118', '400226', '400337'].map((member_number) => ({ member_number })),
  },
  'capabilities/plumbline-place-hold.json': {
    app: 'plumbline', judge: '/_judge/holds/{{share_id}}', fixed: { operator_id: 'OP1001' },
    plates: [
      { member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' },
      { member_number: '400337', share_id: '400337-S0001', reason: 'FRAUD_REVIEW' },
      { member_number: '400445', share_id: '400445-S0001', reason: 'GARNISHMENT' },
    ],
  },
};

interface App {
  url: string;
  env: Record<string, string>;
  close(): Promise<void>;
}

async function startApp(kind: Plan['app']): Promise<App> {
  if (kind === 'casedesk') {
    const desk = await startCaseDesk({ port: 0, delayMs: [0, 0] });
    return { url: desk.url, env: { BASE_URL: desk.url, HANDRAIL_SECRET_PASSWORD: DEMO_PASSWORD }, close: () => desk.close() };
  }
  const bank = await startBank({ port: 0, operatorPassword: PLUMBLINE_PASSWORD });
  return { url: bank.url, env: { BASE_URL: bank.url, HANDRAIL_SECRET_PASSWORD: PLUMBLINE_PASSWORD }, close: () => bank.close() };
}

async function readCard(path: string): Promise<Capability> {
  const loaded = loadCapability(await readFile(path, 'utf8'));
  if (!loaded.ok) throw new Error(`${path}: ${JSON.stringify(loaded.issues)}`);
  return loaded.value;
}

/**
 * Each target's fingerprint taken again under the current observer, from one replay on a fresh app (its first
 * plate). Returns the new values by target id, or why not.
 */
async function retake(card: Capability, plan: Plan, from: string, browser: Browser, dir: string): Promise<Record<string, string> | string> {
  const bare = structuredClone(card);
  for (const t of Object.values(bare.targets)) delete t.fingerprint.value;
  const seen = new Map<string, Control>();
  // Resolved to an element that is no control (a table read as rows): replay checks no fingerprint there.
  const unchecked = new Set<string>();
  const app = await startApp(plan.app);
  try {
    const result = await runCapability({
      card: bare,
      allowUnapproved: true,
      inputs: { ...plan.fixed, ...plan.plates[0] },
      env: app.env,
      evidenceDir: join(dir, 'retake'),
      surface: async () => {
        const s = await BrowserSurface.launch({ browser });
        const resolveTarget = s.resolve.bind(s);
        s.resolve = async (t) => {
          const r = await resolveTarget(t);
          if (r.ok && r.control) seen.set(t.id, r.control);
          else if (r.ok) unchecked.add(t.id);
          return r;
        };
        return s;
      },
    });
    if (result.word !== 'SUCCESS') return `the retake replay ended ${result.word} ${result.code ?? ''}`;
  } finally {
    await app.close();
  }
  const out: Record<string, string> = {};
  for (const [id, t] of Object.entries(card.targets)) {
    if (t.fingerprint.value === undefined) continue;
    const control = seen.get(id);
    if (!control && unchecked.has(id)) continue;
    if (!control) return `target ${id} was not resolved by the retake replay`;
    if (fingerprint(control, t.fingerprint.over, from) !== t.fingerprint.value) {
      return `target ${id} is no longer the control it was (${control.role} '${control.name}'): author the card again`;
    }
    out[id] = fingerprint(control, t.fingerprint.over, WALKER_VERSION);
  }
  return out;
}

async function writeFingerprints(path: string, values: Record<string, string>): Promise<boolean> {
  const raw = JSON.parse(await readFile(path, 'utf8')) as { targets: Record<string, { fingerprint: { value?: string } }> };
  let changed = false;
  for (const [id, value] of Object.entries(values)) {
    const fp = raw.targets[id]?.fingerprint;
    if (fp && fp.value !== value) {
      fp.value = value;
      changed = true;
    }
  }
  if (changed) await writeFile(path, `${JSON.stringify(raw, null, 2)}\n`, 'utf8');
  return changed;
}

async function reverify(rel: string, plan: Plan, from: string, browser: Browser): Promise<string> {
  const path = resolve(ROOT, rel);
  const before = await readCard(path);
  const by = before.lifecycle.approval?.by;
  if (!by) return `${rel}: not approved, left as it is`;
  const dir = await mkdtemp(join(tmpdir(), 'handrail-reverify-'));
  try {
    const values = await retake(before, plan, from, browser, dir);
    if (typeof values === 'string') return `${rel}: NOT re-approved: ${values}`;
    const moved = await writeFingerprints(path, values);
    const app = await startApp(plan.app);
    let card: Capability;
    try {
      const report = await verify(await readCard(path), {
        plates: plan.plates,
        fixedInputs: plan.fixed,
        judge: judgeFrom(`${app.url}${plan.judge}`),
        env: app.env,
        evidenceRoot: join(dir, 'verify'),
      });
      await writeLifecycle(path, report.lifecycle);
      if (!report.verified) return `${rel}: NOT re-approved: ${report.summary}`;
      card = await readCard(path);
    } finally {
      await app.close();
    }
    const verified = `verified ${card.lifecycle.reliability?.k}/${card.lifecycle.reliability?.n}`;
    const decision = approve(card, by);
    // Nothing moved (no bump, the same content): the signature on it still holds, and is not given twice.
    if (!decision.ok && decision.code === 'ALREADY_APPROVED') return `${rel}: ${verified}, still approved by ${by} (content unchanged)`;
    if (!decision.ok) return `${rel}: NOT re-approved: ${decision.reason}`;
    await writeLifecycle(path, decision.lifecycle);
    return `${rel}: ${moved ? 'fingerprints retaken, ' : ''}${verified}, approved again by ${by}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const at = args.indexOf('--from');
  const from = at === -1 ? WALKER_VERSION : (args.splice(at, 2)[1] ?? WALKER_VERSION);
  const chosen = args.length ? args : Object.keys(PLANS);
  const browser = await chromium.launch(findChromium().launchOptions);
  let failed = 0;
  try {
    for (const rel of chosen) {
      const plan = PLANS[rel];
      const line = plan ? await reverify(rel, plan, from, browser) : `${rel}: no plan for this card in scripts/reverify-cards.ts`;
      if (!plan || line.includes('NOT re-approved')) failed++;
      process.stdout.write(`${line}\n`);
    }
  } finally {
    await browser.close();
  }
  return failed ? 1 : 0;
}

process.exitCode = await main();
