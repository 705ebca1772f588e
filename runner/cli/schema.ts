// `handrail schema`: the JSON Schema of a capability, generated from the zod source (never hand-written).
import { z } from 'zod';
import { Capability, CAPABILITY_SCHEMA_ID } from '../../shared/schema/index.ts';

export function capabilityJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Capability, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
  return {
    ...schema,
    $id: `https://handrail.dev/schema/${CAPABILITY_SCHEMA_ID.replace('/', '-')}.json`,
    title: 'Handrail capability',
    description:
      'A reviewed, typed card that plain code replays with no model in the loop. Cross-field rules ' +
      '(blanks name declared inputs, steps name declared screens and targets, commits confirmed before approval) ' +
      'are checked by `handrail` when the card loads.',
  };
}

export function schemaText(): string {
  return `${JSON.stringify(capabilityJsonSchema(), null, 2)}\n`;
}
