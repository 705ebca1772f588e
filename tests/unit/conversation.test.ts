// A long evening's requests stop growing by a whole turn each time: turns before the last KEEP_TURNS fold into one
// line per call, and the request stays what the Messages API accepts (starts with the user, roles alternate, every
// tool_result answers a tool_use of the message before it, every tool_use is answered).
import { describe, expect, it } from 'vitest';
import { FOLDED_HEADER, KEEP_TURNS, OMITTED_SCREEN, ToolConversation, type MessagesRequest } from '../../shared/author/conversation.ts';

function wellFormed(req: MessagesRequest): string[] {
  const problems: string[] = [];
  req.messages.forEach((m, i) => {
    if (m.role !== (i % 2 === 0 ? 'user' : 'assistant')) problems.push(`message ${i} is ${m.role}`);
    if (m.role !== 'user') return;
    const asked = i > 0 ? (req.messages[i - 1]?.content ?? []).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [];
    const answered = m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : []));
    if (JSON.stringify(asked) !== JSON.stringify(answered)) problems.push(`message ${i} answers ${answered.join(',')} for ${asked.join(',')}`);
  });
  return problems;
}

/** Runs `turns` turns of one act call each; returns every request (as sent: a deep copy). */
function evening(turns: number, c = new ToolConversation()): MessagesRequest[] {
  const sent: MessagesRequest[] = [];
  let last: { id: string } | null = null;
  for (let t = 1; t <= turns; t++) {
    const results = last ? [{ id: last.id, ok: true, text: `done: button 'Next ${t - 1}'` }] : [];
    sent.push(structuredClone(c.request({ turn: t, system: 'sys', screen: `SCREEN ${t}\n1: invoke button 'Next ${t}'`, results }, { model: 'm', maxTokens: 100 })));
    last = { id: `toolu_${t}` };
    c.answer({ content: [{ type: 'tool_use', id: last.id, name: 'act', input: { row: 1, verb: 'invoke' } }] });
  }
  return sent;
}

describe('the conversation with a long evening', () => {
  it('keeps the last turns whole and folds the older ones, one line per call, never losing a folded line', () => {
    const sent = evening(20);
    for (const req of sent) expect(wellFormed(req)).toEqual([]);
    const last = sent.at(-1) as MessagesRequest;
    expect(last.messages.filter((m) => m.role === 'assistant')).toHaveLength(KEEP_TURNS);
    const first = last.messages[0]?.content[0];
    expect(first?.type === 'text' && first.text.split('\n')[0]).toBe(FOLDED_HEADER);
    // 20 turns, 8 kept whole: the 11 calls of turns 1–11 are folded, each with its result, in order.
    const folded = first?.type === 'text' ? first.text.split('\n').slice(1) : [];
    expect(folded).toHaveLength(20 - 1 - KEEP_TURNS);
    expect(folded[0]).toBe(`- act {"row":1,"verb":"invoke"} → done: button 'Next 1'`);
    expect(folded.at(-1)).toBe(`- act {"row":1,"verb":"invoke"} → done: button 'Next 11'`);
    // Only the latest screen is shown; the older kept ones are stubs.
    const texts = last.messages.flatMap((m) => m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
    expect(texts.at(-1)).toContain('SCREEN 20');
    expect(texts.filter((t) => t.startsWith('SCREEN'))).toHaveLength(1);
    expect(texts.filter((t) => t === OMITTED_SCREEN).length).toBeGreaterThan(0);
    // It stops growing by a whole turn: request 20 is not much larger than request 12.
    const size = (r: MessagesRequest): number => JSON.stringify(r).length;
    expect(size(last) - size(sent[11] as MessagesRequest)).toBeLessThan(8 * 90);
  });

  it('the same call with the same result, turn after turn, folds into one line that counts them; a different one ends the run', () => {
    const c = new ToolConversation();
    let last: MessagesRequest | undefined;
    // The calls of turns 2–13 are the same refused call; every other turn's is a call of its own.
    const same = (t: number): boolean => t >= 2 && t <= 13;
    for (let t = 1; t <= 20; t++) {
      const p = t - 1;
      const results = p >= 1 ? [{ id: `toolu_${p}`, ok: !same(p), text: same(p) ? 'refused (NO_SUCH_ROW): there is no row 9999' : `done: button 'Next ${p}'` }] : [];
      last = c.request({ turn: t, system: 'sys', screen: `SCREEN ${t}`, results }, { model: 'm', maxTokens: 1 });
      c.answer({ content: [{ type: 'tool_use', id: `toolu_${t}`, name: 'act', input: same(t) ? { row: 9999, verb: 'invoke' } : { row: 1, verb: 'invoke' } }] });
    }
    const req = last as MessagesRequest;
    expect(wellFormed(req)).toEqual([]);
    const first = req.messages[0]?.content[0];
    const folded = first?.type === 'text' ? first.text.split('\n').slice(1) : [];
    // Turns 1–11 folded: turn 1's call, then the ten like calls of turns 2–11 as one line.
    expect(folded).toEqual([`- act {"row":1,"verb":"invoke"} → done: button 'Next 1'`, `- act {"row":9999,"verb":"invoke"} → refused (NO_SUCH_ROW): there is no row 9999 (×10)`]);
  });

  it('a saved and restored conversation folds on from where it was', () => {
    const c = new ToolConversation();
    evening(12, c);
    const restored = new ToolConversation(c.save());
    const req = restored.request({ turn: 13, system: 'sys', screen: 'SCREEN 13', results: [{ id: 'toolu_12', ok: true, text: 'done' }] }, { model: 'm', maxTokens: 1 });
    expect(wellFormed(req)).toEqual([]);
    const first = req.messages[0]?.content[0];
    expect(first?.type === 'text' && first.text.split('\n').length - 1).toBe(13 - 1 - KEEP_TURNS);
  });
});
