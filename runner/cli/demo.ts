// `handrail demo` (npm run demo): start PLUMBLINE on a free port, replay the hand-written place-hold card for a
// demo member, print the receipt, ask the bank's judge whether the hold is really there, and stop the bank.
// `--terminal` does the same on the bank's green screen with the 3270 card (docs/design/terminal.md, "The terminal surface").
// This file is the one place the product may import demo/ (docs/design/README.md, "Layers and import rules").
import { startBank } from '../../demo/plumbline/server.ts';
import { approvalStatus } from '../approval.ts';
import { packageFile } from '../package-root.ts';
import { runCapability } from '../run.ts';
import { printResult, readCard } from './replay.ts';

export const DEMO_CARD = packageFile('capabilities/plumbline-place-hold.json');
export const DEMO_TERMINAL_CARD = packageFile('capabilities/plumbline-3270-place-hold.json');

/** The demo bank's own password: it opens nothing but PLUMBLINE on 127.0.0.1 (override: PLUMBLINE_PASSWORD). */
const DEMO_BANK_PASSWORD = 'plumb-2026';

export interface DemoOptions {
  /** Replay the 3270 card on the green screen instead of the web card in a browser. */
  terminal?: boolean;
}

export async function demoCommand(opts: DemoOptions = {}): Promise<number> {
  const password = process.env['PLUMBLINE_PASSWORD'] ?? DEMO_BANK_PASSWORD;
  const bank = await startBank({ port: 0, operatorPassword: password, ...(opts.terminal ? { terminal: true } : {}) });
  const err = (line: string): boolean => process.stderr.write(`${line}\n`);
  try {
    err(`PLUMBLINE listening on ${bank.url}${bank.terminalUrl ? ` and ${bank.terminalUrl} (green screen)` : ''}`);
    const loaded = await readCard(opts.terminal ? DEMO_TERMINAL_CARD : DEMO_CARD);
    if (!loaded.ok) {
      err(loaded.message);
      return 2;
    }
    const status = approvalStatus(loaded.card);
    err(status.servable ? `card ${loaded.card.id}: approved by ${status.by}, content hash matches` : `card ${loaded.card.id}: ${status.reason}`);
    // Both cards take the same words: on the green screen the share's row is selected and LEGAL is typed as its code.
    const inputs: Record<string, string> = { operator_id: 'OP1001', member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' };
    const share = inputs['share_id'] ?? '';
    err(`replaying ${loaded.card.id} for member ${inputs['member_number'] ?? ''}, share ${share}, reason ${inputs['reason'] ?? ''}`);
    const result = await runCapability({
      card: loaded.card,
      // The demo replays only what a person approved, as a server would.
      requireApproved: true,
      inputs: { ...inputs, password },
      env: { ...process.env, BASE_URL: opts.terminal ? (bank.terminalUrl ?? '') : bank.url },
      open: { headed: process.env['HANDRAIL_HEADED'] === '1' },
      progress: (line) => err(`  ${line}`),
    });
    const judge = bank.store.holdFor(share);
    err(`judge (asks the record store, not the screen): held=${judge.held} confirmation=${judge.confirmation ?? '-'} postPresses=${judge.postPresses}`);
    err(`evidence: ${result.evidence ?? 'none'} (check it: npx handrail evidence verify <dir>)`);
    return printResult(result);
  } finally {
    await bank.close();
  }
}
