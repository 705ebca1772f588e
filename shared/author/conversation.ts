// The conversation with a Messages-API model, written once for both hosts (the runner and the extension's worker).
// It holds the message history and the tool_use ids the next message must answer, builds each request and reads
// each answer; the hosts only send the request with their SDK client. No SDK is imported here (shared/ rule):
// the request and response are described structurally, as the Messages API defines them.
import { z } from 'zod';
import type { ModelTurn, ToolCall } from './ports.ts';
import { TOOLS } from './prompt.ts';

export const OMITTED_SCREEN = '[old screen]';
/**
 * Adds a folded call's line; the same call with the same result as the line before (a model trying one refused
 * row again and again) counts on that line, `(×N)`, instead of repeating it: nothing is lost, and a long evening's
 * requests do not grow by a line per repeat.
 */
function foldLine(lines: string[], line: string): void {
  const last = lines.at(-1);
  const counted = last === undefined ? null : /^(.*) \(×(\d+)\)$/.exec(last);
  const times = counted?.[1] === line ? Number(counted[2]) : last === line ? 1 : 0;
  if (times > 0) lines[lines.length - 1] = `${line} (×${times + 1})`;
  else lines.push(line);
}

/** A folded result's first words, at most `max` characters, cut at a word with an ellipsis: the gist (done or refused, and why) comes first. */
function firstWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/** The first line of the text that stands for folded turns. */
export const FOLDED_HEADER = 'Earlier in this evening (older turns, folded; their screens are gone):';
/**
 * Turns kept whole (calls and their results); older ones fold into one text line per call, so a long evening's
 * requests stop growing by a whole turn each time (docs/design/authoring.md, "Authoring").
 */
export const KEEP_TURNS = 8;
const FOLDED_RESULT_CHARS = 64;

/** The blocks a conversation holds, and nothing else: what a saved conversation may contain. */
const Block = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() }),
  z.strictObject({ type: z.literal('tool_result'), tool_use_id: z.string(), content: z.string(), is_error: z.boolean().optional() }),
]);
type Block = z.infer<typeof Block>;

/** A saved conversation: the messages so far and the pending tool_use ids. It holds no key and no setting. */
export const SavedConversation = z.strictObject({
  messages: z.array(z.strictObject({ role: z.enum(['user', 'assistant']), content: z.array(Block) })),
  pending: z.array(z.string()),
});
export type SavedConversation = z.infer<typeof SavedConversation>;

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system: string;
  tools: typeof TOOLS;
  messages: SavedConversation['messages'];
}

/** The parts of a Messages API response this reads; other block kinds (thinking, …) are ignored. */
export interface MessagesResponse {
  content: ReadonlyArray<{ type: string; id?: string; name?: string; input?: unknown; text?: string }>;
}

export class ToolConversation {
  readonly #messages: SavedConversation['messages'] = [];
  /** tool_use ids of the last answer: the next user message must carry a tool_result for each, in order. */
  #pending: string[] = [];

  /** `saved`: what `save()` returned (parsed here: it may come back from storage). */
  constructor(saved?: unknown) {
    if (saved !== undefined) {
      const c = SavedConversation.parse(saved);
      this.#messages.push(...c.messages);
      this.#pending = [...c.pending];
    }
  }

  save(): SavedConversation {
    // A deep copy: what is kept must not change when the next turn stubs old screens in place.
    return SavedConversation.parse(structuredClone({ messages: this.#messages, pending: this.#pending }));
  }

  /** The next request: tool results for the last answer's calls, then the current screen. */
  request(turn: ModelTurn, opts: { model: string; maxTokens: number }): MessagesRequest {
    const content: Block[] = this.#pending.map((id) => {
      const r = turn.results.find((x) => x.id === id);
      return {
        type: 'tool_result',
        tool_use_id: id,
        content: r?.text ?? 'not run: the evening moved on before this call',
        ...(r && !r.ok ? { is_error: true } : {}),
      };
    });
    content.push({ type: 'text', text: turn.screen });
    // Only the latest screen is ever actionable; older ones become a stub, which keeps turns cheap.
    for (const m of this.#messages) {
      if (m.role !== 'user') continue;
      m.content = m.content.map((b) => (b.type === 'text' && b.text !== OMITTED_SCREEN && !b.text.startsWith(FOLDED_HEADER) ? { type: 'text', text: OMITTED_SCREEN } : b));
    }
    this.#messages.push({ role: 'user', content });
    this.#fold();
    return { model: opts.model, max_tokens: opts.maxTokens, system: turn.system, tools: TOOLS, messages: this.#messages };
  }

  /**
   * Folds the turns before the last KEEP_TURNS: each of their calls becomes one line of text (tool, input, the first
   * words of its result) in the first user message. The request stays well formed: it starts with the user, roles
   * alternate, and every tool_result left answers a tool_use in the message before it.
   */
  #fold(): void {
    const m = this.#messages;
    const assistants = m.filter((x) => x.role === 'assistant').length;
    if (assistants <= KEEP_TURNS) return;
    const drop = assistants - KEEP_TURNS;
    const first = m[0]?.content[0];
    const lines = first?.type === 'text' && first.text.startsWith(FOLDED_HEADER) ? first.text.split('\n').slice(1) : [];
    for (let i = 0; i < drop; i++) {
      const asked = m[2 * i + 1];
      const answered = m[2 * i + 2];
      for (const b of asked?.content ?? []) {
        if (b.type !== 'tool_use') continue;
        const r = answered?.content.find((x) => x.type === 'tool_result' && x.tool_use_id === b.id);
        const result = r?.type === 'tool_result' ? firstWords(r.content.replace(/\s+/g, ' '), FOLDED_RESULT_CHARS) : 'no result';
        foldLine(lines, `- ${b.name} ${JSON.stringify(b.input)} → ${result}`);
      }
    }
    // The first kept user message loses the results it carried for the last folded turn (they are in the lines).
    const kept = m[2 * drop];
    if (!kept) return;
    const rest = kept.content.filter((b) => b.type !== 'tool_result');
    m.splice(0, 2 * drop + 1, { role: 'user', content: [{ type: 'text', text: [FOLDED_HEADER, ...lines].join('\n') }, ...rest] });
  }

  /** Reads the answer: its tool calls, in the order given, and keeps it in the history. */
  answer(res: MessagesResponse): ToolCall[] {
    const calls: ToolCall[] = [];
    const echo: Block[] = [];
    for (const block of res.content) {
      if (block.type === 'tool_use' && block.id !== undefined && block.name !== undefined) {
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
