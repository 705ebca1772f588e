// The JSON Schema editors validate capability files against is the one generated from the zod source, and
// the hand-written PLUMBLINE card satisfies both it and the loader.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { schemaText } from '../../runner/cli/schema.ts';
import { loadCapability } from '../../shared/schema/index.ts';

describe('capability JSON Schema', () => {
  it('capabilities/capability.schema.json is current (regenerate: npm run golden:update)', async () => {
    expect(await readFile('capabilities/capability.schema.json', 'utf8')).toBe(schemaText());
  });

  it('every card in capabilities/ loads and points its editor at the schema', async () => {
    const text = await readFile('capabilities/plumbline-place-hold.json', 'utf8');
    const loaded = loadCapability(text);
    expect(loaded.ok, loaded.ok ? '' : JSON.stringify(loaded.issues)).toBe(true);
    expect((JSON.parse(text) as { $schema: string }).$schema).toBe('./capability.schema.json');
  });
});
