// The MCP server: one typed tool per approved card. The SDK validates each call's arguments against the
// card's input schema before our handler runs (a malformed call is a tool error and no browser starts);
// the handler runs the replay engine and returns the receipt as structured content.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Served } from './catalog.ts';
import type { CallService } from './service.ts';
import { guardToolCalls, inputsFromArgs, isAnswer, receiptOf, toolSpecFor } from './tools.ts';

export const SERVER_NAME = 'handrail';
export const SERVER_VERSION = '0.1.0';

/** A fresh McpServer over the same cards and the same CallService (one per HTTP request, or one for stdio). */
export function buildMcpServer(served: readonly Served[], service: CallService): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Each tool replays one approved, reviewed capability with no model in the loop. Read the receipt\'s `word`: ' +
        'SUCCESS and BUSINESS_OUTCOME are answers; only RECOVERABLE may be retried.',
    },
  );
  for (const { card } of served) {
    const spec = toolSpecFor(card);
    server.registerTool(
      spec.name,
      {
        title: spec.annotations.title ?? spec.name,
        description: spec.description,
        inputSchema: spec.inputSchema,
        outputSchema: spec.outputSchema,
        annotations: spec.annotations,
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        const receipt = receiptOf(await service.call(card, inputsFromArgs(args)));
        return {
          // The same receipt as text, for clients that do not read structuredContent (MCP 2025-06-18, "Structured Content").
          content: [{ type: 'text', text: JSON.stringify(receipt) }],
          structuredContent: receipt,
          isError: !isAnswer(receipt),
        };
      },
    );
  }
  // Malformed calls (non-object arguments, __proto__ as a name) are answered as tool errors before the SDK parses them.
  const connect = server.connect.bind(server);
  server.connect = async (transport): Promise<void> => {
    await connect(transport);
    guardToolCalls(transport);
  };
  return server;
}
