// Test support: CASEDESK on 127.0.0.1 for a spec file (support/scene.ts), and its judge read straight from the desk's
// /_judge/ endpoints, so a test proves a write from the app's side (docs/design/demo.md, "Demo apps", "Test scenes").
import { startCaseDesk, type Desk, type DeskOptions } from '../../../demo/casedesk/server.ts';
import { appScene, splitScene, type Scene, type SceneOptions } from './scene.ts';

export type DeskScene = Scene<Desk>;

/**
 * Registers the hooks. Unless told otherwise the desk answers after 300–1200 ms, seeded (7) so a spec repeats its
 * timing, and its store is reset before each test.
 */
export function deskScene(o: SceneOptions & Omit<DeskOptions, 'port' | 'host'> = {}, bind?: (s: DeskScene) => void): DeskScene {
  const [scene, desk] = splitScene(o);
  return appScene(() => startCaseDesk({ delayMs: [300, 1200], seed: 7, ...desk }), { reset: true, ...scene }, bind);
}

/** What the desk's judge says of a case: the record and how many writes reached it. */
export interface Facts {
  exists?: boolean;
  case: { id: string; title: string; assignee: string | null; status: string };
  writes: { renames: number; assigns: number; closes: number };
}

export async function judgeCase(desk: Desk, id: string): Promise<Facts> {
  return (await (await fetch(`${desk.url}/_judge/cases/${id}`)).json()) as Facts;
}

/** How many times a case of this title was added (the judge also lists the cases of that title). */
export async function judgeAdded(desk: Desk, title: string): Promise<{ presses: number }> {
  return (await (await fetch(`${desk.url}/_judge/added?title=${encodeURIComponent(title)}`)).json()) as { presses: number };
}
