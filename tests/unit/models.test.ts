// The authoring model: a current default, and the deprecated ones refused — held to the SDK's own lists, so an SDK
// upgrade that retires a model fails here until shared/author/models.ts says what to use instead.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addUsage, DEFAULT_MODEL, DEPRECATED, modelProblem, NO_USAGE } from '../../shared/author/models.ts';

const sdkDir = join(import.meta.dirname, '../../node_modules/@anthropic-ai/sdk');
const sdkJs = readFileSync(join(sdkDir, 'resources/messages/messages.js'), 'utf8');
const sdkTypes = readFileSync(join(sdkDir, 'resources/messages/messages.d.ts'), 'utf8');

describe('the authoring model', () => {
  it('deprecates exactly the models the SDK deprecates', () => {
    const block = /const DEPRECATED_MODELS = \{([^}]*)\}/.exec(sdkJs)?.[1] ?? '';
    const sdkDeprecated = [...block.matchAll(/'([^']+)'\s*:/g)].map((m) => m[1]).sort();
    expect(sdkDeprecated.length).toBeGreaterThan(0);
    expect(Object.keys(DEPRECATED).sort()).toEqual(sdkDeprecated);
  });

  it('defaults to a model the SDK lists and does not deprecate', () => {
    const listed = /export type Model = ([^;]*);/.exec(sdkTypes)?.[1] ?? '';
    expect(listed).toContain(`'${DEFAULT_MODEL}'`);
    expect(modelProblem(DEFAULT_MODEL)).toBeNull();
    for (const d of Object.values(DEPRECATED)) expect(modelProblem(d.use)).toBeNull();
  });

  it('refuses a deprecated model saying what to use, and a name that is not a model name', () => {
    expect(modelProblem('claude-sonnet-4-5')).toMatch(/deprecated \(end of life 2026-11-30\): use claude-sonnet-5-5/);
    expect(modelProblem('x y\n')).toMatch(/not a model name/);
    expect(modelProblem('__proto__')).toMatch(/not a model name/);
  });

  it('sums the usage blocks the API returns, counting what is absent as zero', () => {
    const u = addUsage(addUsage(NO_USAGE, { input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 900 }), null);
    expect(u).toEqual({ requests: 2, input_tokens: 1200, output_tokens: 80, cache_read_input_tokens: 900, cache_creation_input_tokens: 0 });
  });
});
