// `handrail approve <card> --by NAME`: a person signs a verified card. The signature is bound to the card's
// content hash, so any later edit makes the card unservable again (runner/approval.ts).
import type { Capability, Lifecycle } from '../../shared/schema/capability.ts';
import { approvalStatus, contentHash } from '../approval.ts';
import { unconfirmedCommits, writeLifecycle } from '../verify.ts';
import { UsageError } from './errors.ts';
import { readCard } from './replay.ts';

export interface ApproveFlags {
  by: string;
}

/** Exit 3: the card may not be approved in its current state (the message says why). */
export const EXIT_NOT_APPROVABLE = 3;

export type Approvable = { ok: true; lifecycle: Lifecycle } | { ok: false; code: string; reason: string };

/** The approval decision as a pure function: what the lifecycle becomes, or why it may not. */
export function approve(card: Capability, by: string, now: Date = new Date()): Approvable {
  const name = by.trim();
  if (!name) return { ok: false, code: 'NO_APPROVER', reason: 'an approval must name a person: --by "Full Name"' };
  const unconfirmed = unconfirmedCommits(card);
  if (unconfirmed.length > 0) {
    return {
      ok: false,
      code: 'COMMIT_UNCONFIRMED',
      reason: `commit step ${unconfirmed.join(', ')} was never confirmed by an owner; a card with an unconfirmed commit stays draft`,
    };
  }
  const status = approvalStatus(card);
  if (card.lifecycle.state === 'draft') {
    return { ok: false, code: 'NOT_VERIFIED', reason: 'the card is a draft: verify it first (handrail verify <card> --inputs plates.csv --judge …)' };
  }
  if (status.state === 'edited_after_approval') {
    return { ok: false, code: 'EDITED_AFTER_APPROVAL', reason: `${status.reason}; verify it again before anyone signs it` };
  }
  if (status.servable) return { ok: false, code: 'ALREADY_APPROVED', reason: `already approved by ${status.by} for exactly this content` };
  const rel = card.lifecycle.reliability;
  if (!rel || rel.k !== rel.n) {
    return { ok: false, code: 'NOT_VERIFIED', reason: 'the card says verified but carries no clean reliability figure: verify it again' };
  }
  return {
    ok: true,
    lifecycle: { ...card.lifecycle, state: 'approved', approval: { by: name, at: now.toISOString(), content_hash: contentHash(card) } },
  };
}

export async function approveCommand(cardPath: string, flags: ApproveFlags): Promise<number> {
  if (typeof flags.by !== 'string') throw new UsageError('approve needs --by "Full Name": the person who signs the card');
  const loaded = await readCard(cardPath);
  if (!loaded.ok) throw new UsageError(loaded.message, 'CARD_INVALID');
  const decision = approve(loaded.card, flags.by);
  if (!decision.ok) {
    process.stderr.write(`handrail: cannot approve ${cardPath}: ${decision.reason}\n`);
    process.stdout.write(`${JSON.stringify({ card: loaded.card.id, approved: false, code: decision.code, reason: decision.reason })}\n`);
    return EXIT_NOT_APPROVABLE;
  }
  await writeLifecycle(cardPath, decision.lifecycle);
  const approval = decision.lifecycle.approval;
  process.stderr.write(`approved ${loaded.card.id} by ${approval?.by ?? ''}: ${approval?.content_hash ?? ''}\n`);
  process.stdout.write(`${JSON.stringify({ card: loaded.card.id, approved: true, approval })}\n`);
  return 0;
}
