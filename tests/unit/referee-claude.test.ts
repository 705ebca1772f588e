// The `claude` referee through the real Anthropic SDK against a fake Messages API on 127.0.0.1: the answer sheet is
// a forced tool with one number per numbered option; what comes back is mapped to labels and normalised; a missing
// or malformed sheet, or a dead endpoint, is a typed refusal the engine climbs past.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeReferee, RefereeError } from '../../runner/escalate/claude.ts';
import { judge, judgeControl, NONE, type ControlQuestion, type RefereeQuestion } from '../../runner/escalate/referee.ts';

const question: RefereeQuestion = {
  options: [
    { label: 'hold_result', title: 'Hold Result', paths: ["title 'RESULT'", "strong 'HOLD POSTED CONFIRMATION HX-#'"] },
    { label: 'hold_refused', title: 'Hold Not Posted', paths: ["title 'RESULT'", "strong 'HOLD NOT POSTED'"] },
  ],
  page: { paths: ["title 'RESULT'", "strong 'HOLD ACCEPTED REF HX-#'"], text: 'HOLD ACCEPTED REF HX-118204' },
};

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  server = undefined;
});

/** A fake Messages API that answers every request with `input` in a tool_use block (or no block at all). */
async function fakeApi(input: unknown, bodies: unknown[]): Promise<string> {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      bodies.push(JSON.parse(raw));
      const content = input === undefined ? [{ type: 'text', text: 'I think it is the result.' }] : [{ type: 'tool_use', id: 'toolu_1', name: 'answer', input }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', model: 'fake', content, stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } }));
    });
  });
  await new Promise<void>((ok) => server?.listen(0, '127.0.0.1', () => ok()));
  return `http://127.0.0.1:${(server?.address() as AddressInfo).port}`;
}

describe('the claude referee', () => {
  it('answers the control question on a sheet numbered by menu row, and a sure row clears the bar', async () => {
    const bodies: unknown[] = [];
    const url = await fakeApi({ row_1: 0.02, row_3: 0.95, none_of_these: 0.03 }, bodies);
    const referee = new ClaudeReferee({ apiKey: 'sk-test', baseURL: url });
    const q: ControlQuestion = {
      target: { id: 'post_button', role: 'button', name: 'F10=Post Hold', scope: [{ role: 'frame', name: 'work' }] },
      rows: [
        { n: 1, text: "1: invoke link 'Sign Off'", role: 'link', name: 'Sign Off', scope: [] },
        { n: 3, text: "3: invoke button 'F10=Post'", role: 'button', name: 'F10=Post', scope: [{ role: 'frame', name: 'work' }] },
      ],
    };
    const verdict = await referee.askControl(q);
    expect(referee.calls).toBe(1);
    expect(verdict.probabilities['row_3']).toBeCloseTo(0.95);
    const body = bodies[0] as { tools: { input_schema: { required: string[] } }[]; messages: { content: string }[] };
    expect(body.tools[0]?.input_schema.required).toEqual(['row_1', 'row_3', NONE]);
    expect(body.messages[0]?.content).toContain("recorded as: button 'F10=Post Hold' in frame 'work'");
    expect(body.messages[0]?.content).toContain("row_3: 3: invoke button 'F10=Post'");
    // Sure enough to propose; the engine still believes it only on the card's fingerprint.
    expect(judgeControl(verdict, q)).toEqual({ kind: 'chosen', row: 3, confidence: expect.closeTo(0.95) as unknown, margin: expect.closeTo(0.92) as unknown });
  });

  it('forces a numbered answer sheet and maps it back to the screens, normalised', async () => {
    const bodies: unknown[] = [];
    const url = await fakeApi({ option_1: 0.6, option_2: 0.1, none_of_these: 0.1 }, bodies);
    const referee = new ClaudeReferee({ apiKey: 'sk-test', baseURL: url });
    const verdict = await referee.ask(question);
    expect(referee.calls).toBe(1);
    expect(verdict.backend).toBe('claude');
    expect(verdict.probabilities['hold_result']).toBeCloseTo(0.75);
    expect(verdict.probabilities['hold_refused']).toBeCloseTo(0.125);
    expect(verdict.probabilities[NONE]).toBeCloseTo(0.125);
    const body = bodies[0] as { tool_choice: unknown; tools: { input_schema: { required: string[] } }[]; messages: { content: string }[] };
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'answer' });
    expect(body.tools[0]?.input_schema.required).toEqual(['option_1', 'option_2', NONE]);
    expect(body.messages[0]?.content).toContain('option_1: "Hold Result"');
    expect(body.messages[0]?.content).toContain('HOLD ACCEPTED REF');
    // Below the bar: judged unsure, never acted on.
    expect(judge(verdict, question)).toMatchObject({ kind: 'unsure' });
  });

  it('refuses a missing or malformed answer sheet, and a dead endpoint, as REFEREE_UNAVAILABLE', async () => {
    const none = new ClaudeReferee({ apiKey: 'k', baseURL: await fakeApi(undefined, []) });
    await expect(none.ask(question)).rejects.toMatchObject({ code: 'REFEREE_UNAVAILABLE', message: /no answer sheet/ });
    await new Promise<void>((ok) => server?.close(() => ok()));
    const bad = new ClaudeReferee({ apiKey: 'k', baseURL: await fakeApi({ option_1: 2, option_2: 0, none_of_these: 0 }, []) });
    await expect(bad.ask(question)).rejects.toBeInstanceOf(RefereeError);
    await new Promise<void>((ok) => server?.close(() => ok()));
    const zero = new ClaudeReferee({ apiKey: 'k', baseURL: await fakeApi({ option_1: 0, option_2: 0, none_of_these: 0 }, []) });
    await expect(zero.ask(question)).rejects.toMatchObject({ message: /every option 0/ });
    await new Promise<void>((ok) => server?.close(() => ok()));
    server = undefined;
    const dead = new ClaudeReferee({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    await expect(dead.ask(question)).rejects.toMatchObject({ code: 'REFEREE_UNAVAILABLE' });
  });

  it('refuses a deprecated model before any request', () => {
    expect(() => new ClaudeReferee({ apiKey: 'k', model: 'claude-sonnet-4-5' })).toThrow(/deprecated/);
  });
});
