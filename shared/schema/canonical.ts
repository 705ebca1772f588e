// Canonical JSON: sorted keys, no whitespace. Two cards with the same content give the same bytes,
// which is what approval hashes and golden files rely on.
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** The part of a card an approval covers: everything but its lifecycle and editor hint. */
export function approvableContent(card: { lifecycle?: unknown; $schema?: unknown }): string {
  const { lifecycle: _l, $schema: _s, ...rest } = card;
  return canonicalJson(rest);
}
