// Approval is bound to the card's content: a person's name plus the sha-256 of everything but the lifecycle.
// Change one byte of a step and the card is a draft again as far as any server is concerned.
import { createHash } from 'node:crypto';
import { approvableContent, type Capability } from '../shared/schema/index.ts';

export function contentHash(card: Capability): string {
  return `sha256:${createHash('sha256').update(approvableContent(card)).digest('hex')}`;
}

export type ApprovalStatus =
  | { servable: true; state: 'approved'; by: string }
  | { servable: false; state: 'draft' | 'verified' | 'edited_after_approval'; reason: string };

export function approvalStatus(card: Capability): ApprovalStatus {
  const { lifecycle } = card;
  if (lifecycle.state === 'approved' && lifecycle.approval) {
    if (lifecycle.approval.content_hash === contentHash(card)) {
      return { servable: true, state: 'approved', by: lifecycle.approval.by };
    }
    return {
      servable: false,
      state: 'edited_after_approval',
      reason: `approved by ${lifecycle.approval.by}, but the card changed since: its content hash no longer matches`,
    };
  }
  if (lifecycle.state === 'verified') {
    return { servable: false, state: 'verified', reason: 'verified but not approved: nobody has signed it (handrail approve --by NAME)' };
  }
  return { servable: false, state: 'draft', reason: 'a draft: verify it, then a person approves it' };
}
