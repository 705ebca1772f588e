// The Anthropic model adapter: the Model port over the Messages API with tool use (the tools of
// shared/author/prompt.ts). Any Messages-API-compatible endpoint can stand in through ANTHROPIC_BASE_URL;
// tests point it at a fake server on 127.0.0.1. Only this file (and the CLI that wires it) imports the SDK; the
// conversation itself is shared/author/conversation.ts, the same code the extension's adapter uses.
import { HandrailError } from '../../shared/errors.ts';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { ToolConversation } from '../../shared/author/conversation.ts';
import { addUsage, DEFAULT_MODEL, modelProblem, NO_USAGE, type ModelUsage } from '../../shared/author/models.ts';
import type { Model, ModelTurn, ToolCall } from '../../shared/author/ports.ts';

export const DEFAULT_ANTHROPIC_MODEL = DEFAULT_MODEL;

export interface AnthropicModelOptions {
  apiKey: string;
  baseURL?: string;
  model?: string;
  maxTokens?: number;
}

/** A typed refusal before any request: the key is missing. The message never carries a key. */
export class ModelConfigError extends HandrailError<'MODEL_NOT_CONFIGURED' | 'MODEL_DEPRECATED'> {
  override readonly name = 'ModelConfigError';
  constructor(message: string, code: 'MODEL_NOT_CONFIGURED' | 'MODEL_DEPRECATED' = 'MODEL_NOT_CONFIGURED') {
    super(code, message);
  }
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
  readonly #conversation = new ToolConversation();
  #usage: ModelUsage = NO_USAGE;

  constructor(opts: AnthropicModelOptions) {
    this.name = opts.model ?? DEFAULT_ANTHROPIC_MODEL;
    const problem = modelProblem(this.name);
    if (problem) throw new ModelConfigError(problem, 'MODEL_DEPRECATED');
    this.#maxTokens = opts.maxTokens ?? 1024;
    this.#client = new Anthropic({ apiKey: opts.apiKey, ...(opts.baseURL ? { baseURL: opts.baseURL } : {}), maxRetries: 2 });
  }

  async next(turn: ModelTurn): Promise<ToolCall[]> {
    const body = this.#conversation.request(turn, { model: this.name, maxTokens: this.#maxTokens });
    const res = await this.#client.messages.create(body as unknown as MessageCreateParamsNonStreaming);
    this.sizes.push({ turn: turn.turn, request_chars: JSON.stringify(body).length, input_tokens: res.usage?.input_tokens ?? null });
    this.#usage = addUsage(this.#usage, res.usage);
    return this.#conversation.answer(res);
  }

  /** What the API said it counted over this session's requests. */
  usage(): ModelUsage {
    return { ...this.#usage };
  }
}
