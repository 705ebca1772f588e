// The layering rules of docs/design/README.md as a check that fails the build: folders are the architecture.
// Run by `npm run check:imports`; tests/unit/import-direction.test.ts proves each rule can fail.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export interface Violation {
  file: string;
  specifier: string;
  rule: string;
}

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
const MODEL_SDKS = [/^@anthropic-ai\//, /^openai$/, /^@google\/generative-ai/];
const BROWSER_APIS = [/^chrome$/, /^webextension-polyfill/, /^wxt(\/|$)/, /^@types\/chrome/];
const PLAYWRIGHT = [/^playwright/, /^@playwright\//];
const APPS = ['extension', 'runner', 'terminal-agent', 'mac-agent'] as const;
const PRODUCT = [...APPS, 'shared'] as const;
/** The one place the product may reach into demo/: the `handrail demo` launcher. */
const DEMO_LAUNCHERS = new Set(['runner/cli/demo.ts']);

function topFolder(path: string): string {
  return path.split('/')[0] ?? '';
}

/** Rules for one import. `file` and the resolved target are repo-relative with forward slashes. */
export function judgeImport(file: string, specifier: string, target: string | null): string | null {
  const from = topFolder(file);
  const to = target ? topFolder(target) : null;
  const bare = target === null;
  if (from === 'shared') {
    if (bare && NODE_BUILTINS.has(specifier)) return 'shared/ must run anywhere: no Node built-ins';
    if (bare && BROWSER_APIS.some((r) => r.test(specifier))) return 'shared/ must not touch extension APIs';
    if (bare && PLAYWRIGHT.some((r) => r.test(specifier))) return 'shared/ must not import Playwright';
    if (bare && MODEL_SDKS.some((r) => r.test(specifier))) return 'shared/ must not import a model SDK';
    if (to && to !== 'shared') return `shared/ imports only shared/ (this reaches into ${to}/)`;
  }
  if (file.startsWith('runner/engine/') && bare && MODEL_SDKS.some((r) => r.test(specifier))) {
    return 'runner/engine/ never imports a model SDK: models live behind ports';
  }
  if ((APPS as readonly string[]).includes(from) && to && (APPS as readonly string[]).includes(to) && to !== from) {
    const runnerUsesAgent = from === 'runner' && (to === 'terminal-agent' || to === 'mac-agent');
    if (!runnerUsesAgent) return `${from}/ must not import ${to}/: the apps meet only in shared/`;
  }
  if (from === 'demo' && to && (PRODUCT as readonly string[]).includes(to)) {
    return 'demo/ imports nothing from the product';
  }
  if ((PRODUCT as readonly string[]).includes(from) && to === 'demo' && !DEMO_LAUNCHERS.has(file)) {
    return 'the product imports nothing from demo/ (only the demo launcher may)';
  }
  return null;
}

export function importsOf(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((f) => f.fileName);
}

export function checkFile(root: string, file: string, source: string): Violation[] {
  const out: Violation[] = [];
  for (const specifier of importsOf(source)) {
    const target = specifier.startsWith('.')
      ? relative(root, resolve(root, dirname(file), specifier)).split(sep).join('/')
      : null;
    const rule = judgeImport(file, specifier, target);
    if (rule) out.push({ file, specifier, rule });
  }
  return out;
}

const SCANNED = ['shared', 'runner', 'extension', 'terminal-agent', 'mac-agent', 'demo'];

function* sourceFiles(root: string, dir: string): Generator<string> {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (statSync(join(root, rel)).isDirectory()) yield* sourceFiles(root, rel);
    else if (/\.(m?ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) yield rel;
  }
}

export function checkTree(root: string): Violation[] {
  const out: Violation[] = [];
  for (const dir of SCANNED) {
    try {
      statSync(join(root, dir));
    } catch {
      continue;
    }
    for (const file of sourceFiles(root, dir)) out.push(...checkFile(root, file, readFileSync(join(root, file), 'utf8')));
  }
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const violations = checkTree(root);
  for (const v of violations) console.error(`${v.file}: import '${v.specifier}' — ${v.rule}`);
  if (violations.length > 0) {
    console.error(`import-direction: ${violations.length} violation(s)`);
    process.exit(1);
  }
  console.error('import-direction: ok');
}
