// `handrail evidence verify <dir> [--head H] [--journal FILE] [--require-anchor]`: recompute a run's evidence
// chain and check its end against an anchor — the head its receipt carried, the head its journal recorded, or the
// HMAC key in HANDRAIL_EVIDENCE_KEY. A chain with no anchor is intact but "unanchored": a whole-log rewrite,
// a clean truncation or a re-sealed appended line would not be seen.
import { EVIDENCE_KEY_ENV, headFromJournal, verifyEvidence, type Anchor } from '../evidence.ts';
import { UsageError } from './errors.ts';

export interface EvidenceVerifyFlags {
  head?: string;
  journal?: string;
  requireAnchor?: boolean;
}

/** Exit codes: 0 intact (anchored, or unanchored without --require-anchor), 1 tampered, 3 unanchored with --require-anchor. */
export const EXIT_TAMPERED = 1;
export const EXIT_UNANCHORED = 3;

export async function evidenceVerifyCommand(
  dir: string,
  flags: EvidenceVerifyFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  if (flags.head !== undefined && !/^[0-9a-fA-F]{64}$/.test(flags.head)) throw new UsageError(`--head expects 64 hex digits (a receipt's evidence_head), got "${flags.head}"`);
  const anchor: Anchor = {};
  if (flags.head !== undefined) anchor.head = flags.head.toLowerCase();
  const key = env[EVIDENCE_KEY_ENV];
  if (key) anchor.key = key;
  let verdict = await verifyEvidence(dir, anchor);
  if (verdict.ok && flags.journal !== undefined) {
    let head: string | undefined;
    try {
      head = await headFromJournal(flags.journal, verdict.run);
    } catch (e) {
      throw new UsageError((e as Error).message, 'JOURNAL_CORRUPT');
    }
    if (head === undefined) {
      out(`tampered: line ${verdict.lines}: the journal ${flags.journal} records no evidence head for run ${verdict.run}`);
      return EXIT_TAMPERED;
    }
    verdict = await verifyEvidence(dir, { ...anchor, head: head.toLowerCase() });
    if (verdict.ok && flags.head !== undefined && flags.head.toLowerCase() !== head.toLowerCase()) {
      out(`tampered: line ${verdict.lines}: --head and the journal disagree (journal says ${head})`);
      return EXIT_TAMPERED;
    }
  }
  if (!verdict.ok) {
    out(`tampered: line ${verdict.line}: ${verdict.reason}`);
    return EXIT_TAMPERED;
  }
  const sealed = verdict.seal ? `sealed ${verdict.seal.word}` : 'not sealed';
  if (verdict.anchored_by.length === 0) {
    out(`intact: ${verdict.lines} lines, ${sealed}, unanchored (nothing outside the log was checked: give --head, --journal or ${EVIDENCE_KEY_ENV}), head ${verdict.head}`);
    return flags.requireAnchor ? EXIT_UNANCHORED : 0;
  }
  const by = verdict.anchored_by.map((a) => (a === 'hmac' ? 'HMAC' : flags.journal !== undefined ? 'journal head' : 'head')).join(' + ');
  out(`intact: ${verdict.lines} lines, ${sealed}, anchored by ${by}, head ${verdict.head}`);
  return 0;
}
