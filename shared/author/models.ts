// Which Anthropic model authoring uses, and which it refuses. The default is a current model from the SDK's model
// list; a model the SDK marks deprecated is refused before any request, with the model to use instead. Shared by the
// runner's adapter and the extension's settings. `tests/unit/models.test.ts` holds DEPRECATED to the SDK's own
// list, so an SDK upgrade that retires another model fails the build until this table says what to use.

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** Deprecated models (as the SDK lists them): when they reach end of life, and what to use instead. */
export const DEPRECATED: Readonly<Record<string, { endOfLife: string; use: string }>> = {
  'claude-sonnet-4-5': { endOfLife: '2026-11-30', use: DEFAULT_MODEL },
  'claude-sonnet-4-5-20250929': { endOfLife: '2026-11-30', use: DEFAULT_MODEL },
};

/** Why a model name cannot be used, or null. Names only: never a key. */
export function modelProblem(name: string): string | null {
  if (!/^[a-z0-9][a-z0-9.\-_:]{0,99}$/.test(name)) return `"${name.slice(0, 40)}" is not a model name`;
  const d = Object.hasOwn(DEPRECATED, name) ? DEPRECATED[name] : undefined;
  if (d) return `the model ${name} is deprecated (end of life ${d.endOfLife}): use ${d.use} (set HANDRAIL_MODEL or the panel's model setting)`;
  return null;
}

/** What the model API reported it counted, summed over a session's requests (absent numbers count as 0). */
export interface ModelUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export const NO_USAGE: ModelUsage = { requests: 0, input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

/** Adds one response's `usage` block (as the Messages API returns it) to a running total. */
export function addUsage(total: ModelUsage, u: { input_tokens?: number | null; output_tokens?: number | null; cache_read_input_tokens?: number | null; cache_creation_input_tokens?: number | null } | null | undefined): ModelUsage {
  return {
    requests: total.requests + 1,
    input_tokens: total.input_tokens + (u?.input_tokens ?? 0),
    output_tokens: total.output_tokens + (u?.output_tokens ?? 0),
    cache_read_input_tokens: total.cache_read_input_tokens + (u?.cache_read_input_tokens ?? 0),
    cache_creation_input_tokens: total.cache_creation_input_tokens + (u?.cache_creation_input_tokens ?? 0),
  };
}
