// `npm run casedesk`: CASEDESK on 127.0.0.1 until SIGINT/SIGTERM.
// Usage: tsx demo/casedesk/main.ts [--port N] [--delay MIN-MAX] (ms; default 300-3000)
import { parseArgs } from 'node:util';
import { DEMO_PASSWORD, startCaseDesk, type DeskOptions } from './server.ts';

function fail(message: string): never {
  process.stderr.write(`casedesk: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { port?: string | undefined; delay?: string | undefined };
  try {
    ({ values } = parseArgs({ options: { port: { type: 'string' }, delay: { type: 'string' } }, strict: true }));
  } catch (e) {
    fail((e as Error).message);
  }
  const opts: DeskOptions = {};
  if (values.port !== undefined) {
    if (!/^\d+$/.test(values.port) || Number(values.port) > 65535) fail(`--port must be a port number, got ${JSON.stringify(values.port)}`);
    opts.port = Number(values.port);
  }
  if (values.delay !== undefined) {
    const m = /^(\d+)-(\d+)$/.exec(values.delay);
    if (!m || Number(m[1]) > Number(m[2])) fail(`--delay must be MIN-MAX in ms with MIN <= MAX, got ${JSON.stringify(values.delay)}`);
    opts.delayMs = [Number(m[1]), Number(m[2])];
  }
  const desk = await startCaseDesk(opts);
  process.stdout.write(`CASEDESK on ${desk.url}/ (log in with any user name and the password ${DEMO_PASSWORD})\n`);
  const stop = (): void => void desk.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((e: unknown) => fail(e instanceof Error ? e.message : String(e)));
