// `handrail demo` (npm run demo): start PLUMBLINE on a free port, replay the hand-written place-hold card for a
// demo member, print the receipt, ask the bank's judge whether the hold is really there, and stop the bank.
// This file is the one place the product may import demo/ (docs/ARCHITECTURE.md, "Layers and import rules").
import { fileURLToPath } from 'node:url';
import { startBank } from '../../demo/plumbline/server.ts';
import { approvalStatus } from '../approval.ts';
import { runCapability } from '../run.ts';
import { printResult, readCard } from './replay.ts';

export const DEMO_CARD = fileURLToPath(new URL('../../capabilities/plumbline-place-hold.json', import.meta.url));

/** The demo bank's own password: it opens nothing but PLUMBLINE on 127.0.0.1 (override: PLUMBLINE_PASSWORD). */
const DEMO_BANK_PASSWORD = 'plumb-2026';

export async function demoCommand(): Promise<number> {
  const password = process.env['PLUMBLINE_PASSWORD'] ?? DEMO_BANK_PASSWORD;
  const bank = await startBank({ port: 0, operatorPassword: password });
  const err = (line: string): boolean => process.stderr.write(`${line}\n`);
  try {
    err(`PLUMBLINE listening on ${bank.url}`);
    const loaded = await readCard(DEMO_CARD);
    if (!loaded.ok) {
      err(loaded.message);
      return 2;
    }
    const status = approvalStatus(loaded.card);
    err(status.servable ? `card ${loaded.card.id}: approved by ${status.by}, content hash matches` : `card ${loaded.card.id}: ${status.reason}`);
    const inputs = { operator_id: 'OP1001', member_number: '400118', share_id: '400118-S0005', reason: 'LEGAL' };
    err(`replaying ${loaded.card.id} for member ${inputs.member_number}, share ${inputs.share_id}, reason ${inputs.reason}`);
    const result = await runCapability({
      card: loaded.card,
      // The demo replays only what a person approved, as a server would.
      requireApproved: true,
      inputs: { ...inputs, password },
      env: { ...process.env, BASE_URL: bank.url },
      open: { headed: process.env['HANDRAIL_HEADED'] === '1' },
      progress: (line) => err(`  ${line}`),
    });
    const judge = bank.store.holdFor(inputs.share_id);
    err(`judge (asks the record store, not the screen): held=${judge.held} confirmation=${judge.confirmation ?? '-'} postPresses=${judge.postPresses}`);
    err(`evidence: ${result.evidence ?? 'none'} (check it: npx handrail evidence verify <dir>)`);
    return printResult(result);
  } finally {
    await bank.close();
  }
}
