// What the real-library specs share (tests/fixtures/real/): a page's own account of what its widgets hold, the owner
// of a scripted evening who commits only Save, the turns both case pages end with, and a card's "Log in" steps.
import type { Page } from '@playwright/test';
import type { Owner } from '../../../shared/author/ports.ts';
import type { Script } from '../../../shared/author/scripted.ts';
import type { Capability } from '../../../shared/schema/capability.ts';

/**
 * The "key: value" items of the list `css` selects ("priority: High", …), as the page shows what each widget holds.
 * Read from the DOM, not by role: an open modal list (MUI's) hides the rest of the page from the accessibility tree.
 */
export async function listed(page: Page, css: string): Promise<Record<string, string>> {
  const items = await page.locator(`${css} > li`).allTextContents();
  return Object.fromEntries(items.map((t) => [t.slice(0, t.indexOf(':')), t.slice(t.indexOf(':') + 2)]));
}

/** An owner who says Save commits and every other press navigates, recording each control asked about in `asked`. */
export function savesOnly(asked: string[] = []): Owner {
  return {
    ask(q) {
      asked.push(q.control);
      return Promise.resolve({ answer: q.control === "button 'Save'" ? 'commit' : 'navigate', name: 'Dana Reviewer' });
    },
  };
}

/** Of a card's steps on a "Log in" button: each one's screen, and how many different fingerprints their targets have. */
export function loginSteps(card: Capability): { screens: string[]; fingerprints: number } {
  const steps = card.steps.filter((s) => card.targets[s.target]?.name?.eq === 'Log in');
  return { screens: steps.map((s) => s.screen), fingerprints: new Set(steps.map((s) => card.targets[s.target]?.fingerprint.value)).size };
}

/**
 * The turns a scripted model ends an evening with on either case page (aria.mjs, bootstrap.html): open the "Close
 * case" modal, press its "Log in" and "Confirm", press the header's "Log in", Save, and finish on "Case saved".
 */
export const CLOSE_AND_SAVE: Script['turns'] = [
  [{ tool: 'act', match: "button 'Close case'", verb: 'invoke' }],
  [
    { tool: 'assert_screen', label: 'closing', title: 'Close the case?' },
    { tool: 'act', match: "button 'Log in'", verb: 'invoke' },
  ],
  [{ tool: 'act', match: "button 'Confirm'", verb: 'invoke' }],
  [{ tool: 'act', match: "button 'Log in'", verb: 'invoke' }],
  [{ tool: 'act', match: "button 'Save'", verb: 'invoke' }],
  [
    { tool: 'assert_screen', label: 'saved', title: 'Case saved' },
    { tool: 'finish', label: 'saved' },
  ],
];
