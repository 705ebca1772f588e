// The MCP server: one typed tool per approved card. The SDK validates each call's arguments against the
// card's input schema before our handler runs (a malformed call is a tool error and no browser starts);
// the handler runs the replay engine and returns the receipt as structured content, with resource links to the
// run's evidence. A call with a progress token hears each step; log lines go out at the level the client set.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpServer, ResourceTemplate, type RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  ErrorCode,
  LoggingLevelSchema,
  McpError,
  SetLevelRequestSchema,
  type CallToolResult,
  type LoggingLevel,
  type ReadResourceResult,
  type ServerNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { LOG_FILE } from '../evidence.ts';
import { renderReport } from '../report.ts';
import type { StepEvent } from '../engine/engine.ts';
import type { Capability } from '../../shared/schema/capability.ts';
import { contentHash } from '../approval.ts';
import type { LiveCatalog, Served } from './catalog.ts';
import type { CallService } from './service.ts';
import { evidenceUris, guardToolCalls, inputsFromArgs, isAnswer, receiptOf, rehearsalSpecFor, RUN_ID_RE, RUN_URI_PREFIX, toolSpecFor } from './tools.ts';

export const SERVER_NAME = 'handrail';
export const SERVER_VERSION = '0.1.0';

export interface BuildOptions {
  /**
   * Follow the catalog: tools come and go as cards are added, approved, edited or deleted, and the client is sent
   * `notifications/tools/list_changed` (docs/design/mcp.md, "The MCP server"). Only a connection that lives on can
   * be told (stdio, an HTTP session); a server built over a fixed list advertises `listChanged: false`.
   */
  follow?: boolean;
  /** Inputs the deployment binds (`handrail serve --bind NAME=VALUE`): off every tool's schema, added to every call. */
  bind?: Readonly<Record<string, string>>;
}

/** Messages below this level are not sent until the client asks for them (`logging/setLevel`). */
const DEFAULT_LOG_LEVEL: LoggingLevel = 'notice';
const severity = (l: LoggingLevel): number => LoggingLevelSchema.options.indexOf(l);

type Send = (n: ServerNotification) => Promise<void>;

/** A fresh McpServer over the catalog and the same CallService (one per HTTP request, or one for stdio). */
export function buildMcpServer(catalog: LiveCatalog | readonly Served[], service: CallService, opts: BuildOptions = {}): McpServer {
  const follow = opts.follow === true && !Array.isArray(catalog);
  const bind = opts.bind ?? {};
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: follow }, resources: {}, logging: {} },
      // Several cards changing at once (a checkout, a copy) are one notification.
      debouncedNotificationMethods: ['notifications/tools/list_changed'],
      instructions:
        'Each tool replays one approved, reviewed capability with no model in the loop. Read the receipt\'s `word`: ' +
        'SUCCESS and BUSINESS_OUTCOME are answers; only RECOVERABLE and BUSY may be retried. A repeated identical call ' +
        'returns the first receipt (`from_journal: true`). A card that commits also has `<tool>-rehearse`: the same ' +
        'inputs, read-only, answering REHEARSED with the request the commit would send, nothing pressed. The run\'s evidence is linked as resources.',
    },
  );

  let level: LoggingLevel = DEFAULT_LOG_LEVEL;
  // The level is this connection's: one McpServer per stdio connection or HTTP session.
  server.server.setRequestHandler(SetLevelRequestSchema, (req) => {
    level = req.params.level;
    return {};
  });
  const logTo = (send: Send, at: LoggingLevel, data: string): void => {
    if (severity(at) < severity(level)) return;
    send({ method: 'notifications/message', params: { level: at, logger: SERVER_NAME, data } }).catch(() => undefined);
  };

  const tools = new Map<string, { tools: RegisteredTool[]; hash: string }>();
  /** A card's own tool and, for a card that commits, its rehearsal tool (`<id>-rehearse`, runner/mcp/tools.ts). */
  const register = (card: Capability): RegisteredTool[] => {
    // Only the bindings this card has an input for: another card's binding would be an unknown input here.
    const own = Object.fromEntries(Object.entries(bind).filter(([name]) => Object.hasOwn(card.inputs, name)));
    const specs = [{ spec: toolSpecFor(card, own), rehearse: false }];
    const rehearsal = rehearsalSpecFor(card, own);
    if (rehearsal) specs.push({ spec: rehearsal, rehearse: true });
    return specs.map(({ spec, rehearse }) => server.registerTool(
      spec.name,
      { title: spec.annotations.title ?? spec.name, description: spec.description, inputSchema: spec.inputSchema, outputSchema: spec.outputSchema, annotations: spec.annotations },
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        const send: Send = (n) => extra.sendNotification(n);
        const token = extra._meta?.progressToken;
        const onStep = (e: StepEvent): void => {
          if (e.phase === 'start' && token !== undefined) {
            const message = `step ${e.n} of ${e.of}: ${e.step} on screen ${e.screen}`;
            send({ method: 'notifications/progress', params: { progressToken: token, progress: e.n, total: e.of, message } }).catch(() => undefined);
          }
          if (e.phase === 'dispatched' && e.effect === 'commit') {
            logTo(send, 'notice', `${card.id}: commit ${e.step} dispatched; from here a cancellation no longer stops the run, and its receipt is kept for the next identical call`);
          }
        };
        const inputs = { ...inputsFromArgs(args), ...own };
        const result = await service.call(card, inputs, { signal: extra.signal, onStep, log: (line) => logTo(send, 'info', `${card.id}: ${line}`), ...(rehearse ? { rehearse } : {}) });
        const receipt = receiptOf(result, card, inputs);
        logTo(send, isAnswer(receipt) ? 'info' : 'warning', `${card.id}: ${receipt.word} ${receipt.code}${receipt.from_journal ? ' (answered from the journal)' : ''}`);
        const links: CallToolResult['content'] = receipt.evidence
          ? [
              { type: 'resource_link', uri: receipt.evidence.log, name: `${receipt.run_id} evidence log`, mimeType: 'application/x-ndjson' },
              { type: 'resource_link', uri: receipt.evidence.report, name: `${receipt.run_id} report`, mimeType: 'text/html' },
            ]
          : [];
        return {
          // The same receipt as text, for clients that do not read structuredContent (MCP 2025-06-18, "Structured Content").
          content: [{ type: 'text', text: JSON.stringify(receipt) }, ...links],
          structuredContent: receipt,
          isError: !isAnswer(receipt),
        };
      },
    ));
  };
  const served = (): readonly Served[] => (Array.isArray(catalog) ? catalog : (catalog as LiveCatalog).served);
  const sync = (): void => {
    const now = new Map(served().map((s) => [s.card.id, s.card]));
    for (const [id, t] of tools) {
      const card = now.get(id);
      if (!card || contentHash(card) !== t.hash) {
        for (const tool of t.tools) tool.remove();
        tools.delete(id);
      }
    }
    for (const [id, card] of now) if (!tools.has(id)) tools.set(id, { tools: register(card), hash: contentHash(card) });
  };
  // The SDK installs tools/list and tools/call with the first tool, and capabilities cannot change once connected:
  // a server that starts with no card must still answer tools/list and take the cards added later.
  server.registerTool('handrail_placeholder', { description: 'never listed' }, () => ({ content: [] })).remove();
  sync();
  // registerTool always advertises listChanged: true; say what this connection will really do.
  server.server.registerCapabilities({ tools: { listChanged: follow } });
  if (follow) {
    const stop = (catalog as LiveCatalog).onChange(sync);
    const onclose = server.server.onclose;
    server.server.onclose = (): void => {
      stop();
      onclose?.();
    };
  }

  registerEvidence(server, service);

  // Malformed calls (non-object arguments, __proto__ as a name) are answered as tool errors before the SDK parses them.
  const connect = server.connect.bind(server);
  server.connect = async (transport): Promise<void> => {
    await connect(transport);
    guardToolCalls(transport);
  };
  return server;
}

/** Each run's evidence as two resources: the hash-chained log as written, and the HTML report built from it. */
function registerEvidence(server: McpServer, service: CallService): void {
  const dirOf = (uri: URL, runId: unknown): string => {
    const id = String(runId);
    if (!RUN_ID_RE.test(id)) throw new McpError(ErrorCode.InvalidParams, `${uri.href} names no run (expected ${RUN_URI_PREFIX}run-YYYYMMDDTHHMMSS-xxxxxx/log or /report)`);
    return service.evidenceDirOf(id);
  };
  // MCP 2025-06-18, "Resources", error handling: resource not found is -32002.
  const notFound = (uri: URL): McpError => new McpError(-32002, `no evidence for ${uri.href} on this server`, { uri: uri.href });
  server.registerResource(
    'run_evidence_log',
    new ResourceTemplate(`${RUN_URI_PREFIX}{run_id}/log`, { list: undefined }),
    { title: 'A run\'s evidence log', description: 'The hash-chained, sealed evidence log of one run (JSON lines, secrets masked)', mimeType: 'application/x-ndjson' },
    async (uri, vars): Promise<ReadResourceResult> => {
      const dir = dirOf(uri, vars['run_id']);
      let text: string;
      try {
        text = await readFile(join(dir, LOG_FILE), 'utf8');
      } catch {
        throw notFound(uri);
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/x-ndjson', text }] };
    },
  );
  server.registerResource(
    'run_report',
    new ResourceTemplate(`${RUN_URI_PREFIX}{run_id}/report`, { list: undefined }),
    { title: 'A run\'s report', description: 'One self-contained HTML page for a reviewer: the word, each step and screen, the screenshots, whether the evidence verifies', mimeType: 'text/html' },
    async (uri, vars): Promise<ReadResourceResult> => {
      const dir = dirOf(uri, vars['run_id']);
      const runId = String(vars['run_id']);
      try {
        await readFile(join(dir, LOG_FILE));
      } catch {
        throw notFound(uri);
      }
      const report = await renderReport(dir);
      return { contents: [{ uri: evidenceUris(runId).report, mimeType: 'text/html', text: report.html }] };
    },
  );
}
