// The Anthropic model adapter: the Model port over the Messages API with tool use (the three tools of
// shared/author/prompt.ts). Any Messages-API-compatible endpoint can stand in through ANTHROPIC_BASE_URL;
// tests point it at a fake server on 127.0.0.1. Only this file (and the CLI that wires it) imports the SDK.
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Model, ModelTurn, ToolCall } from '../../shared/author/ports.ts';
import { TOOLS } from '../../shared/author/prompt.ts';

export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';
const OMITTED = '[earlier screen omitted: act only on the screen shown last]';

export interface AnthropicModelOptions {
  apiKey: string;
  baseURL?: string;
  model?: string;
  maxTokens?: number;
}

/** A typed refusal before any request: the key is missing. The message never carries a key. */
export class ModelConfigError extends Error {
  override readonly name = 'ModelConfigError';
  readonly code = 'MODEL_NOT_CONFIGURED';
}

/** Options from the environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, HANDRAIL_MODEL. */
export function anthropicOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): AnthropicModelOptions {
  const apiKey = env['ANTHROPIC_API_KEY'];
  if (!apiKey) throw new ModelConfigError('--model anthropic needs ANTHROPIC_API_KEY in the environment');
  return {
    apiKey,
    ...(env['ANTHROPIC_BASE_URL'] ? { baseURL: env['ANTHROPIC_BASE_URL'] } : {}),
    ...(env['HANDRAIL_MODEL'] ? { model: env['HANDRAIL_MODEL'] } : {}),
  };
}

export interface RequestSize {
  turn: number;
  /** Characters of the whole request body sent (system, tools, messages): tokens ≈ chars / 4. */
  request_chars: number;
  /** What the endpoint says it counted, when it says. */
  input_tokens: number | null;
}

export class AnthropicModel implements Model {
  readonly name: string;
  readonly sizes: RequestSize[] = [];
  readonly #client: Anthropic;
  readonly #maxTokens: number;
  readonly #messages: MessageParam[] = [];
  /** tool_use ids of the last answer: the next user message must carry a tool_result for each, in order. */
  #pending: string[] = [];

  constructor(opts: AnthropicModelOptions) {
    this.name = opts.model ?? DEFAULT_ANTHROPIC_MODEL;
    this.#maxTokens = opts.maxTokens ?? 1024;
    this.#client = new Anthropic({ apiKey: opts.apiKey, ...(opts.baseURL ? { baseURL: opts.baseURL } : {}), maxRetries: 2 });
  }

  /** Older screens are replaced by a stub: only the latest screen is ever actionable, and it keeps turns cheap. */
  #compact(): void {
    for (const m of this.#messages) {
      if (m.role !== 'user' || typeof m.content === 'string') continue;
      m.content = m.content.map((b) => (b.type === 'text' && b.text !== OMITTED ? { type: 'text', text: OMITTED } : b));
    }
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
    this.#compact();
    this.#messages.push({ role: 'user', content });
    const body = {
      model: this.name,
      max_tokens: this.#maxTokens,
      system: turn.system,
      tools: TOOLS as unknown as Tool[],
      messages: this.#messages,
    };
    const res = await this.#client.messages.create(body);
    this.sizes.push({ turn: turn.turn, request_chars: JSON.stringify(body).length, input_tokens: res.usage?.input_tokens ?? null });
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
