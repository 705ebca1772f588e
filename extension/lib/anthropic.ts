// The Model port over the Anthropic Messages API, from the extension's worker. The runner has its own adapter
// (runner/author/anthropic.ts) that extension/ may not import; both read the tool declarations from
// shared/author/prompt.ts, so the model is offered the same three tools in both hosts.
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, MessageParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import { z } from 'zod';
import type { Model, ModelTurn, ToolCall } from '../../shared/author/ports.ts';
import { TOOLS } from '../../shared/author/prompt.ts';
import type { ModelSettings } from './settings.ts';

const OMITTED = '[earlier screen omitted: act only on the screen shown last]';

export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
  readonly code = 'MODEL_NOT_CONFIGURED';
}

/** The blocks this adapter writes into a conversation, and nothing else: what a saved conversation may hold. */
const Block = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.strictObject({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() }),
]);

/**
 * The conversation so far (the messages sent and answered, and the tool_use ids the next message must answer),
 * kept by the worker so a model evening goes on after the worker is stopped. It holds no key and no setting:
 * the key is read from storage again when the model is rebuilt.
 */
export const AnthropicConversation = z.strictObject({
  messages: z.array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.array(Block) })),
  pending: z.array(z.string()),
});
export type AnthropicConversation = z.infer<typeof AnthropicConversation>;

export class ExtensionAnthropicModel implements Model {
  readonly name: string;
  readonly #client: Anthropic;
  readonly #messages: MessageParam[] = [];
  #pending: string[] = [];

  /** `saved`: a conversation from `save()` to go on from (parsed here: it comes back from IndexedDB). */
  constructor(s: ModelSettings, saved?: unknown) {
    if (!s.apiKey) throw new ModelConfigError('model mode needs an Anthropic API key: open Settings in the panel and save one');
    this.name = s.model;
    // The key is the clerk's own, kept in extension storage and sent only to the configured API origin; no page
    // script can reach this worker, which is what the SDK's browser warning is about.
    this.#client = new Anthropic({ apiKey: s.apiKey, baseURL: s.baseURL, maxRetries: 2, dangerouslyAllowBrowser: true });
    if (saved !== undefined) {
      const c = AnthropicConversation.parse(saved);
      this.#messages.push(...(c.messages as MessageParam[]));
      this.#pending = [...c.pending];
    }
  }

  save(): AnthropicConversation {
    // A deep copy through JSON: what is kept must not change when the next turn stubs old screens in place.
    return AnthropicConversation.parse(JSON.parse(JSON.stringify({ messages: this.#messages, pending: this.#pending })));
  }

  async next(turn: ModelTurn): Promise<ToolCall[]> {
    const content: ContentBlockParam[] = this.#pending.map((id) => {
      const r = turn.results.find((x) => x.id === id);
      return {
        type: 'tool_result',
        tool_use_id: id,
        content: r?.text ?? 'not run: the evening moved on before this call',
        ...(r && !r.ok ? { is_error: true } : {}),
      };
    });
    content.push({ type: 'text', text: turn.screen });
    // Only the latest screen is actionable; older ones become a stub so turns stay cheap.
    for (const m of this.#messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      m.content = m.content.map((b) => (b.type === 'text' ? { type: 'text', text: OMITTED } : b));
    }
    this.#messages.push({ role: 'user', content });
    const res = await this.#client.messages.create({
      model: this.name,
      max_tokens: 1024,
      system: turn.system,
      tools: TOOLS as unknown as Tool[],
      messages: this.#messages,
    });
    const calls: ToolCall[] = [];
    const echo: ContentBlockParam[] = [];
    for (const block of res.content) {
      if (block.type === 'tool_use') {
        calls.push({ id: block.id, name: block.name, input: block.input });
        echo.push({ type: 'tool_use', id: block.id, name: block.name, input: block.input });
      } else if (block.type === 'text' && block.text) {
        echo.push({ type: 'text', text: block.text });
      }
    }
    this.#messages.push({ role: 'assistant', content: echo.length ? echo : [{ type: 'text', text: '(no answer)' }] });
    this.#pending = calls.map((c) => c.id);
    return calls;
  }
}
