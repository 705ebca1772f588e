// The `handrail` command line. Results go to stdout, progress and errors to stderr; exit codes follow
// the typed word of a run (see EXIT_CODE in shared/schema/result.ts and the README).
import { Command, CommanderError } from 'commander';
import { EXIT_USAGE, reportError } from './errors.ts';
import { schemaText } from './schema.ts';

function program(setExit: (code: number) => void): Command {
  const cli = new Command('handrail')
    .description('Work a task out once, compile it into a reviewed capability, replay it with no model in the loop.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError();

  cli
    .command('schema')
    .description('print the JSON Schema of a capability (generated from the zod source)')
    .action(() => {
      process.stdout.write(schemaText());
      setExit(0);
    });

  cli
    .command('observe')
    .description('open a page headlessly and print what the walker sees, for every frame')
    .argument('<url>', 'the page to open')
    .option('--json', 'print the observation as JSON')
    .option('--menu', 'print the numbered menu a model would read (default)')
    .option('--text', 'print the screen text')
    .action(async (url: string, opts: { json?: boolean; menu?: boolean; text?: boolean }) => {
      const { observeCommand } = await import('./observe.ts');
      setExit(await observeCommand(url, { format: opts.json ? 'json' : opts.text ? 'text' : 'menu' }));
    });

  cli
    .command('replay')
    .description('replay a capability headlessly: receipt JSON on stdout, progress on stderr')
    .argument('<card>', 'the capability JSON file')
    .option('-i, --input <name=value...>', 'an input value (secrets: prefer HANDRAIL_SECRET_<NAME> in the environment)')
    .option('--base-url <url>', 'fills {{env.BASE_URL}} in the entry')
    .option('--journal <file>', 'write-ahead journal, reusable across runs: a commit in doubt is never pressed again')
    .option('--evidence <dir>', 'evidence directory (default runs/<run id>)')
    .option('--settle-timeout <ms>', 'how long a step may take to settle (default 10000)')
    .option('--headed', 'show the browser')
    .action(async (card: string, flags: import('./replay.ts').ReplayFlags) => {
      const { replayCommand } = await import('./replay.ts');
      setExit(await replayCommand(card, flags));
    });

  const evidence = cli.command('evidence').description('work with evidence directories');
  evidence
    .command('verify')
    .description('check a run\'s evidence chain; exit 0 when intact, 1 naming the first bad line')
    .argument('<dir>', 'the evidence directory')
    .action(async (dir: string) => {
      const { verifyEvidence } = await import('../evidence.ts');
      const verdict = await verifyEvidence(dir);
      if (verdict.ok) {
        process.stdout.write(`intact: ${verdict.lines} lines, head ${verdict.head}\n`);
        setExit(0);
      } else {
        process.stdout.write(`tampered: line ${verdict.line}: ${verdict.reason}\n`);
        setExit(1);
      }
    });

  cli
    .command('demo')
    .description('start PLUMBLINE, the mock bank, and run the demo against it')
    .action(async () => {
      const { demoCommand } = await import('./demo.ts');
      setExit(await demoCommand());
    });

  return cli;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exit = 0;
  try {
    await program((code) => (exit = code)).parseAsync([...argv], { from: 'user' });
    return exit;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_USAGE;
    return reportError(e);
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (e: unknown) => (process.exitCode = reportError(e)),
  );
}
