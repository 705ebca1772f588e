// The `handrail` command line. Results go to stdout, progress and errors to stderr; exit codes follow
// the typed word of a run (see EXIT_CODE in shared/schema/result.ts and docs/reference/words.md).
import { Command, CommanderError } from 'commander';
import { packageVersion } from '../package-root.ts';

function program(setExit: (code: number) => void): Command {
  const cli = new Command('handrail')
    .description('Work a task out once, compile it into a reviewed capability, replay it with no model in the loop.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => process.stdout.write(s), writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError()
    .version(packageVersion(), '-V, --version', 'print the version of handrail')
    .option('--config <file>', 'handrail.config.json to read (default: ./handrail.config.json if present); flags win over it');
  type Cmd = { optsWithGlobals<T>(): T };

  cli
    .command('schema')
    .description('print the JSON Schema of a capability (generated from the zod source)')
    .action(async () => {
      const { schemaText } = await import('./schema.ts');
      process.stdout.write(schemaText());
      setExit(0);
    });

  cli
    .command('observe')
    .description('open a page headlessly and print what the walker sees, for every frame')
    .argument('<url>', 'the page to open (http, https, file), or a terminal (tn3270://host:port)')
    .option('--json', 'print the observation as JSON')
    .option('--menu', 'print the numbered menu a model would read (default)')
    .option('--text', 'print the screen text')
    .option('--surface <name>', 'the surface to observe on (runner/surfaces.ts; default: tn3270 for a tn3270:// entry, else browser)')
    .option('--settle-timeout <ms>', 'how long the page may take to come to rest (default 10000)')
    .action(async (url: string, opts: { json?: boolean; menu?: boolean; text?: boolean; surface?: string; settleTimeout?: string }) => {
      const { observeCommand, settleTimeoutFlag } = await import('./observe.ts');
      const settle = settleTimeoutFlag(opts.settleTimeout);
      setExit(await observeCommand(url, { format: opts.json ? 'json' : opts.text ? 'text' : 'menu', ...(opts.surface ? { surface: opts.surface } : {}), ...(settle ? { settleTimeoutMs: settle } : {}) }));
    });

  cli
    .command('replay')
    .description('replay a capability headlessly: receipt JSON on stdout, progress on stderr')
    .argument('<card>', 'the capability JSON file')
    .option('-i, --input <name=value...>', 'an input value (secrets: prefer HANDRAIL_SECRET_<NAME> in the environment)')
    .option('--base-url <url>', 'fills {{env.BASE_URL}} in the entry')
    .option('--journal <file>', 'this intent\'s journal file (default $HANDRAIL_HOME/journals/<key>.jsonl): a commit in doubt is never pressed again')
    .option('--wait <ms>', 'wait this long for another process running the same key, then answer BUSY (default 0)')
    .option('--evidence <dir>', 'evidence directory (default runs/<run id>)')
    .option('--settle-timeout <ms>', 'how long a step may take to settle (default 10000)')
    .option('--allow-unapproved', 'run a card that commits although no approval is bound to its content (the receipt and evidence say so)')
    .option('--probe', 'when the journal holds this intent\'s commit in doubt, run the card\'s read-only probe and let a conclusive answer settle it')
    .option('--rehearse', 'run up to the first commit with every write held, check it, show the request it would send and press nothing (word REHEARSED, exit 16; the journal is read, not written)')
    .option('--allow-env <name...>', 'an environment variable the card\'s entry may read as {{env.NAME}} besides BASE_URL (never HANDRAIL_*, ANTHROPIC_*)')
    .option('--scout <claude|none>', 'after the referee, seat a model with commit struck off and a four-turn leash to name the page (believed only if the furniture agrees)')
    .option('--referee <local|claude|none>', 'when no tier names a page, ask this referee which expected screen it is (believed only if the furniture agrees; claude reads ANTHROPIC_API_KEY)')
    .option('--console', 'after the referee and the scout, pause for a person: a console on 127.0.0.1 (its one-time link on stderr) to act through the guarded menu and hand back')
    .option('--console-timeout <ms>', 'how long the console waits for a person before the run goes on without one (default 600000)')
    .option('--headed', 'show the browser')
    .option('--trace <file.zip>', 'record a Playwright trace (npx playwright show-trace FILE); refused for a card with secret inputs')
    .option('--inputs <rows.csv>', 'one run per CSV row (the header names the inputs): a receipt per row as JSON lines on stdout, a summary table on stderr')
    .option('--parallel <n>', 'with --inputs: how many rows run at once, each in its own context of one browser (default 1)')
    .option('--drain-ms <ms>', 'with --inputs: on SIGINT/SIGTERM, how long running rows may finish before they are cancelled (default 30000)')
    .option('--browser-ws <url>', 'open contexts in a Playwright browser server (ws://…, e.g. npx playwright launch-server) instead of launching Chromium')
    .action(async (card: string, _flags: unknown, cmd: Cmd) => {
      const { replayCommand } = await import('./replay.ts');
      setExit(await replayCommand(card, cmd.optsWithGlobals<import('./replay.ts').ReplayFlags>()));
    });

  cli
    .command('author')
    .description('work a task out once: a model drives the app through the numbered menu; the book is written as it goes')
    .requiredOption('--url <entry>', 'where the evening starts')
    .requiredOption('--goal <text>', 'what the task is, in a sentence')
    .option('-i, --input <name=value...>', 'a named input (the model sees names; secret values never)')
    .option('--secret <name...>', 'mark an input secret (value from --input or HANDRAIL_SECRET_<NAME>)')
    .option('--owner <name>', 'who answers "is this button a commit?"')
    .option('--owner-policy <ask|commit>', 'ask on the terminal (default), or, in the owner\'s name, answer commit for every action that sends a write')
    .option('--owner-answers <file>', 'the owner\'s answers written beforehand, one per line (c, n or s), read in order')
    .option('--owner-timeout <seconds>', 'how long the owner has to answer; no answer is a no (default 300)')
    .option('--origin <url...>', 'the app\'s origins, whose non-safe requests are writes (default: the entry\'s)')
    .option('--ignore-write <endpoint...>', 'an endpoint whose writes are not effects: "POST /path" or "/path*"')
    .option('--model <anthropic|scripted:FILE>', 'the model: Anthropic (ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, HANDRAIL_MODEL) or a scripted file', 'anthropic')
    .requiredOption('-o, --out <trace.jsonl>', 'the book to write')
    .option('--max-turns <n>', 'turn budget')
    .option('--headed', 'show the browser')
    .option('--surface <name>', 'the surface the task is worked out on (runner/surfaces.ts; default: tn3270 for a tn3270:// entry, else browser)')
    .action(async (flags: import('./author.ts').AuthorFlags, cmd: Cmd) => {
      const [{ authorCommand }, { envWithConfig, loadConfig }] = await Promise.all([import('./author.ts'), import('../config.ts')]);
      const { config } = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      setExit(await authorCommand(flags, { env: envWithConfig(process.env, config) }));
    });

  cli
    .command('compile')
    .description('compile a book into a draft capability, or list every hole by book line')
    .argument('<trace>', 'the book (JSONL)')
    .option('-o, --out <card.json>', 'where to write the draft (default stdout)')
    .option('--id <id>', 'the capability id (default derived from the goal)')
    .option('--post <step=kind:value...>', "a commit's postcondition: step=text:WORDS or step=control:ROLE:NAME (blanks allowed)")
    .option('--pre <step=kind:value...>', "what a commit's screen shows of its record before the press: step=text:WORDS or step=control:ROLE:NAME (blanks allowed)")
    .option('--no-record <step...>', 'a commit that chooses no record (it adds one, it signs on)')
    .action(async (trace: string, flags: import('./compile.ts').CompileFlags) => {
      const { compileCommand } = await import('./compile.ts');
      setExit(await compileCommand(trace, flags));
    });

  cli
    .command('verify')
    .description('replay a card once per plate from cold; an independent judge confirms each; all clean → verified k of n')
    .argument('<card>', 'the capability JSON file (its lifecycle is written back)')
    .requiredOption('--inputs <plates.csv>', 'one plate per row; header row = input names')
    .option('--judge <cmd|url>', '(or "judge" in the config) the system of record, asked before and after each plate: a URL template (GET, ?phase=&card= added) or a command ({card, inputs, phase} JSON on stdin); either answers a JSON object')
    .option('--change <file.json>', 'the expected change {"before": {...}, "after": {...}} (default: the card\'s judge.change)')
    .option('--judge-env <name...>', 'environment variables a command judge may see besides PATH, HOME, LANG (never HANDRAIL_SECRET_*, ANTHROPIC_*)')
    .option('--base-url <url>', 'fills {{env.BASE_URL}} in the entry')
    .option('--allow-env <name...>', 'an environment variable the card\'s entry may read as {{env.NAME}} besides BASE_URL (never HANDRAIL_*, ANTHROPIC_*)')
    .option('-i, --input <name=value...>', 'an input the same for every plate (secrets: HANDRAIL_SECRET_<NAME>)')
    .option('--evidence <dir>', 'where each plate keeps its evidence')
    .option('--settle-timeout <ms>', 'how long a step may take to settle')
    .option('--headed', 'show the browser')
    .action(async (card: string, _flags: unknown, cmd: Cmd) => {
      const { verifyCommand } = await import('./verify.ts');
      setExit(await verifyCommand(card, cmd.optsWithGlobals<import('./verify.ts').VerifyFlags>()));
    });

  cli
    .command('approve')
    .description('approve a verified card by name, bound to its content hash')
    .argument('<card>', 'the capability JSON file')
    .requiredOption('--by <name>', 'the person approving it')
    .action(async (card: string, flags: { by: string }) => {
      const { approveCommand } = await import('./approve.ts');
      setExit(await approveCommand(card, flags));
    });

  cli
    .command('serve')
    .description('an MCP server with one typed tool per approved card (stdio; --http for Streamable HTTP on 127.0.0.1)')
    .argument('[dir]', 'the capabilities directory', 'capabilities')
    .option('--http <port>', 'serve Streamable HTTP on 127.0.0.1:<port> (bearer token: HANDRAIL_MCP_TOKEN or generated)')
    .option('--journal-dir <dir>', 'journals per (card, inputs): a retried call after a crash is UNSAFE_TO_RETRY')
    .option('--concurrency <n>', 'calls run at once')
    .option('--evidence-dir <dir>', 'where runs keep their evidence')
    .option('--allow-env <name...>', 'an environment variable a card\'s entry may read as {{env.NAME}} besides BASE_URL (never HANDRAIL_*, ANTHROPIC_*)')
    .option('--allow-origin <origin...>', 'a browser origin (scheme://host[:port]) allowed to call --http besides 127.0.0.1/localhost')
    .option('--bind <name=value...>', 'an input the server fills for every call (e.g. operator_id=OP1001): not on the tool\'s schema, never asked of the agent')
    .option('--drain-ms <ms>', 'on SIGTERM/SIGINT, how long calls in flight may finish before they are cancelled (default 30000)')
    .option('--warm', 'start the shared browser at once instead of at the first call')
    .option('--browser-ws <url>', 'open the calls\' contexts in a Playwright browser server (ws://…) instead of launching Chromium')
    .action(async (dir: string, flags: import('./serve.ts').ServeFlags, cmd: Cmd) => {
      const [{ serveCommand, parseBindings }, { envWithConfig, loadConfig }] = await Promise.all([import('./serve.ts'), import('../config.ts')]);
      // handrail.config.json feeds the server as it feeds replay and verify; each flag wins over its config entry.
      const { config } = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      Object.assign(process.env, envWithConfig(process.env, config));
      const bind = { ...(config.bind ?? {}), ...parseBindings(flags.bind) };
      const allowOrigin = flags.allowOrigin ?? config.origins;
      const allowEnv = flags.allowEnv ?? config.allow_env;
      setExit(await serveCommand(dir, { ...flags, bind, ...(allowOrigin ? { allowOrigin } : {}), ...(allowEnv ? { allowEnv } : {}) }));
    });

  const journal = cli.command('journal').description('read and settle the journals under $HANDRAIL_HOME (one per idempotency key)');
  journal
    .command('list')
    .description('every key with its status: open, committed, in_doubt or damaged')
    .action(async () => {
      const { journalList } = await import('./journal.ts');
      setExit(await journalList());
    });
  journal
    .command('show')
    .description('the records of one key\'s journal, verified')
    .argument('<key>', 'the idempotency key (or a journal file)')
    .action(async (key: string) => {
      const { journalShow } = await import('./journal.ts');
      setExit(await journalShow(key));
    });
  journal
    .command('settle')
    .description('record a person\'s decision about a commit in doubt (a chained, signed-by-name record)')
    .argument('<key>', 'the idempotency key (or a journal file)')
    .requiredOption('--as <committed|not-committed>', 'what the person found: the effect exists, or it does not')
    .requiredOption('--by <name>', 'who decided')
    .requiredOption('--note <text>', 'why: what was checked, where')
    .option('--wait <ms>', 'wait this long for a run holding the key (default 0)')
    .action(async (key: string, flags: import('./journal.ts').SettleFlags) => {
      const { journalSettle } = await import('./journal.ts');
      setExit(await journalSettle(key, flags));
    });

  const evidence = cli.command('evidence').description('work with evidence directories');
  evidence
    .command('verify')
    .description('check a run\'s evidence chain and its end: 0 intact, 1 naming the first bad line, 3 unanchored with --require-anchor')
    .argument('<dir>', 'the evidence directory')
    .option('--head <hash>', 'the evidence_head the run\'s receipt carried: the log must end there')
    .option('--journal <file>', 'the run\'s journal: the log must end at the head its receipt recorded')
    .option('--require-anchor', 'fail (exit 3) when nothing outside the log was checked (no --head, --journal or HANDRAIL_EVIDENCE_KEY)')
    .action(async (dir: string, flags: import('./evidence.ts').EvidenceVerifyFlags) => {
      const { evidenceVerifyCommand } = await import('./evidence.ts');
      setExit(await evidenceVerifyCommand(dir, flags));
    });

  cli
    .command('doctor')
    .description('is this machine ready? browser, state directory and journals, model key (present/absent), MCP config; exit 1 naming what is missing')
    .option('--json', 'print the diagnosis as JSON')
    .option('--capabilities <dir>', 'the cards `serve` would offer (default: the project\'s capabilities/)')
    .action(async (flags: { json?: boolean; capabilities?: string }) => {
      const { doctorCommand } = await import('./doctor.ts');
      setExit(await doctorCommand(flags));
    });

  cli
    .command('report')
    .description('self-contained HTML pages of runs from their evidence (steps, screens, rungs, screenshots, the word, the verdict), and an index over many (words, durations, drift)')
    .argument('[runs...]', 'evidence directories, directories of runs, or run ids (none: every run the journals under the state home know)')
    .option('-o, --out <file.html>', 'where to write the page or the index (default <dir>.html beside the evidence; handrail-report.html for several)')
    .option('--head <hash>', 'the evidence_head the run\'s receipt carried: the log must end there (one run only)')
    .action(async (runs: string[], _flags: unknown, cmd: Cmd) => {
      const { reportCommand } = await import('./report.ts');
      setExit(await reportCommand(runs, cmd.optsWithGlobals<import('./report.ts').ReportFlags>()));
    });

  cli
    .command('show')
    .description('a capability for review: inputs (secrets marked), steps in plain words with commits highlighted, screens and marks, approval and content hash')
    .argument('<card>', 'the capability JSON file')
    .option('--html <out.html>', 'write one self-contained HTML page instead of text')
    .action(async (card: string, flags: import('./show.ts').ShowFlags) => {
      const { showCommand } = await import('./show.ts');
      setExit(await showCommand(card, flags));
    });

  const referee = cli.command('referee').description('the escalation ladder\'s referee');
  referee
    .command('calibration')
    .description('the referee\'s verdicts by confidence: how often a verdict that sure was borne out by its run (from $HANDRAIL_HOME/runs.db)')
    .option('--backend <name>', 'only this backend\'s verdicts (local, claude)')
    .option('--json', 'the bins as JSON')
    .action(async (flags: { backend?: string; json?: boolean }) => {
      const { calibrationCommand } = await import('./notebook.ts');
      setExit(await calibrationCommand(flags));
    });

  cli
    .command('diff')
    .description('what changed between two capabilities, in the terms a card is reviewed in (commits first); exit 1 when anything did')
    .argument('<card>', 'the card as it is')
    .argument('<other>', 'the card as proposed (a repair beside a run\'s evidence, or any edit)')
    .option('--json', 'the changes as JSON')
    .action(async (card: string, other: string, flags: { json?: boolean }) => {
      const { diffCommand } = await import('./diff.ts');
      setExit(await diffCommand(card, other, flags));
    });

  cli
    .command('drift')
    .description('targets of a card whose resolving rung moved off their first choice over its latest runs: the early warning that an application changed')
    .argument('<card>', 'the capability JSON file')
    .option('--window <n>', 'how many of the latest runs (default 20)')
    .option('--json', 'the rows as JSON')
    .action(async (card: string, flags: { json?: boolean; window?: string }) => {
      const { driftCommand } = await import('./notebook.ts');
      setExit(await driftCommand(card, flags));
    });

  cli
    .command('demo')
    .description('start PLUMBLINE, the mock bank, and run the demo against it')
    .option('--terminal', "replay the 3270 card on the bank's green screen (TN3270) instead of the web card")
    .action(async (opts: { terminal?: boolean }) => {
      const { demoCommand } = await import('./demo.ts');
      setExit(await demoCommand(opts.terminal ? { terminal: true } : {}));
    });

  return cli;
}

export async function main(argv: readonly string[]): Promise<number> {
  let exit = 0;
  try {
    await program((code) => (exit = code)).parseAsync([...argv], { from: 'user' });
    return exit;
  } catch (e) {
    // A usage error has said its piece already (commander printed it). The rest are loaded only on the way out:
    // the error words pull in zod, which `--help` and every command that ends well do without.
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2; // EXIT_USAGE (errors.ts)
    const { reportError } = await import('./errors.ts');
    return reportError(e);
  }
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    async (e: unknown) => (process.exitCode = (await import('./errors.ts')).reportError(e)),
  );
}
