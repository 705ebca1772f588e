// A small synchronous hash for signatures and fingerprints: FNV-1a 64-bit (Fowler–Noll–Vo, IETF draft
// draft-eastlake-fnv), as 16 hex digits. Not cryptographic: it names screens and controls, it guards nothing.

const OFFSET = 0xcbf29ce484222325n;
const PRIME = 0x100000001b3n;
const MASK = 0xffffffffffffffffn;

/** FNV-1a 64 over the UTF-8 bytes of one string. */
export function fnv1a64(s: string, seed: bigint = OFFSET): bigint {
  let h = seed;
  for (const byte of new TextEncoder().encode(s)) {
    h ^= BigInt(byte);
    h = (h * PRIME) & MASK;
  }
  return h;
}

/** Hash of a list of strings, order-sensitive; each string is length-prefixed so ['ab','c'] ≠ ['a','bc']. */
export function hashStrings(xs: readonly string[]): string {
  let h = OFFSET;
  for (const x of xs) h = fnv1a64(`${x.length}:${x}\n`, h);
  return h.toString(16).padStart(16, '0');
}
