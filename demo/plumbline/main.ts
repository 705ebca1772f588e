// `npm run bank`: PLUMBLINE on 127.0.0.1 until SIGINT/SIGTERM: the web app and its green screen (TN3270) on one store.
// Usage: tsx demo/plumbline/main.ts [--port N] [--tn3270-port N] [--latency MS] [--drift none|banner|reword|rewrite|stray]
// The ports may also come from PLUMBLINE_PORT and PLUMBLINE_TN3270_PORT; the default is a free port.
import { parseArgs } from 'node:util';
import { Drift, startBank, type BankOptions } from './server.ts';

function fail(message: string): never {
  process.stderr.write(`plumbline: ${message}\n`);
  process.exit(2);
}

function intArg(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw)) fail(`${name} must be a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

async function main(): Promise<void> {
  let values: { port?: string | undefined; 'tn3270-port'?: string | undefined; latency?: string | undefined; drift?: string | undefined };
  try {
    ({ values } = parseArgs({
      options: { port: { type: 'string' }, 'tn3270-port': { type: 'string' }, latency: { type: 'string' }, drift: { type: 'string' } },
      strict: true,
    }));
  } catch (e) {
    fail((e as Error).message);
  }
  const opts: BankOptions = { terminal: true };
  const port = intArg('--port', values.port ?? process.env['PLUMBLINE_PORT']);
  if (port !== undefined) {
    if (port > 65535) fail(`--port must be at most 65535, got ${port}`);
    opts.port = port;
  }
  const terminalPort = intArg('--tn3270-port', values['tn3270-port'] ?? process.env['PLUMBLINE_TN3270_PORT']);
  if (terminalPort !== undefined) {
    if (terminalPort > 65535) fail(`--tn3270-port must be at most 65535, got ${terminalPort}`);
    opts.terminalPort = terminalPort;
  }
  const latency = intArg('--latency', values.latency);
  if (latency !== undefined) opts.latencyMs = latency;
  if (values.drift !== undefined) {
    const d = Drift.safeParse(values.drift);
    if (!d.success) fail(`--drift must be one of ${Drift.options.join(', ')}, got ${JSON.stringify(values.drift)}`);
    opts.drift = d.data;
  }

  const bank = await startBank(opts).catch((e: NodeJS.ErrnoException) =>
    fail(e.code === 'EADDRINUSE' ? `a port is already in use: ${e.message}` : `could not start: ${e.message}`),
  );
  process.stdout.write(`PLUMBLINE listening on ${bank.url}\n`);
  process.stdout.write(`PLUMBLINE green screen (TN3270) on ${bank.terminalUrl ?? '(not started)'}\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`plumbline: ${signal}, stopping\n`);
    bank.close().then(
      () => process.exit(0),
      (e: unknown) => fail(`error while stopping: ${(e as Error).message}`),
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((e: unknown) => fail((e as Error).message));
