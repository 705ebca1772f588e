// The Model port over the Anthropic Messages API, from the extension's worker. The conversation itself (history,
// tool results, stubbing old screens, reading the answer) is shared/author/conversation.ts, the same code the
// runner's adapter uses; this file only holds the client and the key.
import { HandrailError } from '../../shared/errors.ts';
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { SavedConversation, ToolConversation } from '../../shared/author/conversation.ts';
import { addUsage, modelProblem, NO_USAGE, type ModelUsage } from '../../shared/author/models.ts';
import type { Model, ModelTurn, ToolCall } from '../../shared/author/ports.ts';
import type { ModelSettings } from './settings.ts';

/** The saved conversation of a model session, kept by the worker so a model evening survives a stopped worker. */
export const AnthropicConversation = SavedConversation;
export type AnthropicConversation = SavedConversation;

export class ModelConfigError extends HandrailError<'MODEL_NOT_CONFIGURED' | 'MODEL_DEPRECATED'> {
  override readonly name = 'ModelConfigError';
  constructor(message: string, code: 'MODEL_NOT_CONFIGURED' | 'MODEL_DEPRECATED' = 'MODEL_NOT_CONFIGURED') {
    super(code, message);
  }
}

export class ExtensionAnthropicModel implements Model {
  readonly name: string;
  readonly #client: Anthropic;
  readonly #conversation: ToolConversation;
  #usage: ModelUsage = NO_USAGE;
  readonly #stopped = new AbortController();

  /** `saved`: a conversation from `save()` to go on from (parsed: it comes back from IndexedDB). No key is in it. */
  constructor(s: ModelSettings, saved?: unknown) {
    if (!s.apiKey) throw new ModelConfigError('model mode needs an Anthropic API key: open Settings in the panel and save one');
    this.name = s.model;
    const problem = modelProblem(s.model);
    if (problem) throw new ModelConfigError(problem, 'MODEL_DEPRECATED');
    // The key is the clerk's own, kept in extension storage and sent only to the configured API origin; no page
    // script can reach this worker, which is what the SDK's browser warning is about.
    this.#client = new Anthropic({ apiKey: s.apiKey, baseURL: s.baseURL, maxRetries: 2, dangerouslyAllowBrowser: true });
    this.#conversation = new ToolConversation(saved);
  }

  save(): AnthropicConversation {
    return this.#conversation.save();
  }

  async next(turn: ModelTurn): Promise<ToolCall[]> {
    if (this.#stopped.signal.aborted) throw new Error('the clerk stopped the session');
    const body = this.#conversation.request(turn, { model: this.name, maxTokens: 1024 });
    let res;
    try {
      res = await this.#client.messages.create(body as unknown as MessageCreateParamsNonStreaming, { signal: this.#stopped.signal });
    } catch (e) {
      if (this.#stopped.signal.aborted) throw new Error('the clerk stopped the session');
      throw e;
    }
    this.#usage = addUsage(this.#usage, res.usage);
    return this.#conversation.answer(res);
  }

  stop(): void {
    this.#stopped.abort();
  }

  /** What the API said it counted over this session's requests (since this worker took the session up). */
  usage(): ModelUsage {
    return { ...this.#usage };
  }
}
