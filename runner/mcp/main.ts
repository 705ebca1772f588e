// A direct entry for `handrail serve` (what MCP clients and the tests spawn): `tsx runner/mcp/main.ts [DIR] [--http PORT] …`.
// The `handrail` CLI wires the same serveCommand; this file exists so the server starts without the CLI shell.
import { parseArgs } from 'node:util';
import { serveCommand } from '../cli/serve.ts';
import { reportError } from '../cli/errors.ts';

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      http: { type: 'string' },
      'journal-dir': { type: 'string' },
      concurrency: { type: 'string' },
      'evidence-dir': { type: 'string' },
    },
  });
  return serveCommand(positionals[0] ?? 'capabilities', {
    ...(values.http !== undefined ? { http: values.http } : {}),
    ...(values['journal-dir'] !== undefined ? { journalDir: values['journal-dir'] } : {}),
    ...(values.concurrency !== undefined ? { concurrency: values.concurrency } : {}),
    ...(values['evidence-dir'] !== undefined ? { evidenceDir: values['evidence-dir'] } : {}),
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => process.exit(reportError(e)),
);
