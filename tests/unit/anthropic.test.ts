// The Anthropic adapter speaks the Messages API with tool use: several tool calls in one answer come back in order, every tool_use gets its tool_result (errors marked), old screens are compacted, and the endpoint comes from the environment — all against a fake API on 127.0.0.1.
import { afterEach, describe, expect, it } from 'vitest';
import { AnthropicModel, anthropicOptionsFromEnv, DEFAULT_ANTHROPIC_MODEL, ModelConfigError } from '../../runner/author/anthropic.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../fixtures/fake-anthropic.ts';

let fake: FakeAnthropic | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

const SCREEN = "Screen: (not labelled yet)\nMenu:\n1: set_value textbox 'Operator ID'\n2: set_value textbox 'Password'\n3: invoke button 'F5=Sign On'\nText: SIGN ON";

describe('AnthropicModel against a fake Messages API', () => {
  it('returns several calls from one answer in order and answers each tool_use next turn', async () => {
    fake = await startFakeAnthropic(
      {
        turns: [
          [
            { tool: 'act', match: "textbox 'Operator ID'", verb: 'set_value', value: '{{input.operator_id}}' },
            { tool: 'act', row: 2, verb: 'set_value', value: '{{input.password}}' },
            { tool: 'act', match: "button 'F5=Sign On'", verb: 'invoke' },
          ],
          [{ tool: 'finish', label: 'home' }],
        ],
      },
      { apiKey: 'sk-test' },
    );
    const model = new AnthropicModel({ apiKey: 'sk-test', baseURL: fake.url, model: 'claude-test' });
    const first = await model.next({ turn: 1, system: 'goal', screen: SCREEN, results: [] });
    expect(first.map((c) => [c.name, c.input])).toEqual([
      ['act', { row: 1, verb: 'set_value', value: '{{input.operator_id}}' }],
      ['act', { row: 2, verb: 'set_value', value: '{{input.password}}' }],
      ['act', { row: 3, verb: 'invoke' }],
    ]);
    const results = first.map((c, i) => ({ id: c.id, ok: i !== 1, text: i === 1 ? 'refused (WRONG_VERB): nope' : 'done' }));
    const second = await model.next({ turn: 2, system: 'goal', screen: 'Screen: home', results });
    expect(second.map((c) => c.name)).toEqual(['finish']);
    expect(fake.problems).toEqual([]);
    const body = JSON.parse(fake.bodies[1] ?? '{}') as { model: string; messages: { role: string; content: { type: string; text?: string; is_error?: boolean; tool_use_id?: string }[] }[] };
    expect(body.model).toBe('claude-test');
    const last = body.messages.at(-1)?.content ?? [];
    expect(last.filter((b) => b.type === 'tool_result').map((b) => [b.tool_use_id, b.is_error ?? false])).toEqual([
      [first[0]?.id, false],
      [first[1]?.id, true],
      [first[2]?.id, false],
    ]);
    // Only the latest screen is sent in full; the first is compacted.
    expect(JSON.stringify(body.messages[0])).not.toContain('Operator ID');
    expect(model.sizes).toHaveLength(2);
    // The API's own counts, summed over both requests (the fake counts a token per four characters, 10 per block + 5).
    const usage = model.usage();
    expect(usage.requests).toBe(2);
    expect(usage.output_tokens).toBe(10 * 3 + 5 + (10 * 1 + 5));
    expect(usage.input_tokens).toBe(fake.bodies.reduce((n, b) => n + Math.ceil(b.length / 4), 0));
  });

  it('reports a broken request shape (a missing tool_result) as a problem of the fake, proving the check can fail', async () => {
    fake = await startFakeAnthropic({ turns: [[{ tool: 'finish', label: 'x' }], []] });
    await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', max_tokens: 5, tools: [{ name: 'act' }, { name: 'assert_screen' }, { name: 'finish' }], messages: [{ role: 'user', content: 'hi' }] }),
    });
    await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', max_tokens: 5, tools: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'again' }] }] }),
    });
    expect(fake.problems.join('\n')).toMatch(/tools are \[\]/);
    expect(fake.problems.join('\n')).toMatch(/do not answer the previous tool_use ids/);
  });

  it('takes its key, endpoint and model name from the environment, and refuses without a key', () => {
    expect(anthropicOptionsFromEnv({ ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', HANDRAIL_MODEL: 'm1' })).toEqual({
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:9',
      model: 'm1',
    });
    expect(new AnthropicModel(anthropicOptionsFromEnv({ ANTHROPIC_API_KEY: 'k' })).name).toBe(DEFAULT_ANTHROPIC_MODEL);
    expect(() => anthropicOptionsFromEnv({})).toThrow(ModelConfigError);
  });

  it('refuses a deprecated model before any request, naming the model to use', () => {
    let thrown: unknown;
    try {
      new AnthropicModel({ apiKey: 'k', model: 'claude-sonnet-4-5' });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ModelConfigError);
    expect(thrown).toMatchObject({ code: 'MODEL_DEPRECATED' });
    expect((thrown as Error).message).toContain(`use ${DEFAULT_ANTHROPIC_MODEL}`);
    expect((thrown as Error).message).not.toContain('k');
  });
});
