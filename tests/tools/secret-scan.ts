// The secret scan: every file under the given paths (evidence, journals, books, receipts, captured stdout/stderr)
// is searched for every secret value in every spelling the masker knows (shared/secrets.ts: raw, URL/JSON/HTML
// escaped, reversed, hex, base64 at every alignment, split by invisibles, full-width). A hit names the file, the
// secret and the byte offset — never the value. `npm run reliability` runs it over its scratch directory.
//
//   npx tsx tests/tools/secret-scan.ts DIR_OR_FILE...   secrets from HANDRAIL_SECRET_<NAME> in the environment
//
// Exit 0: no hit; 1: hits (one line each on stdout); 2: usage.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Masker } from '../../shared/secrets.ts';

export interface Hit {
  file: string;
  secret: string;
  /** Character offset of the first hit in the file's text (read as UTF-8; a binary's bytes read the same way). */
  at: number;
}

/** The secrets a scan looks for: every HANDRAIL_SECRET_<NAME> in this environment. */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): { name: string; value: string }[] {
  return Object.entries(env).flatMap(([k, v]) => (k.startsWith('HANDRAIL_SECRET_') && v ? [{ name: k.slice(16).toLowerCase(), value: v }] : []));
}

async function* filesUnder(path: string): AsyncGenerator<string> {
  const s = await stat(path);
  if (!s.isDirectory()) {
    yield path;
    return;
  }
  for (const e of await readdir(path, { withFileTypes: true })) {
    const p = join(path, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

/** Every file under `paths` that holds any spelling of any secret (its name and its path names too). */
export async function scan(paths: readonly string[], secrets: readonly { name: string; value: string }[]): Promise<{ files: number; hits: Hit[] }> {
  const masker = new Masker(secrets);
  const hits: Hit[] = [];
  let files = 0;
  for (const root of paths) {
    for await (const file of filesUnder(root)) {
      files++;
      for (const text of [file, (await readFile(file)).toString('utf8')]) {
        const found = masker.nameIn(text);
        if (found !== null) {
          const placeholder = masker.mask(text).indexOf(`[secret:${found}]`);
          hits.push({ file, secret: found, at: Math.max(0, placeholder) });
          break;
        }
      }
    }
  }
  return { files, hits };
}

async function main(argv: readonly string[]): Promise<number> {
  if (argv.length === 0) {
    process.stderr.write('usage: secret-scan DIR_OR_FILE... (secrets from HANDRAIL_SECRET_<NAME>)\n');
    return 2;
  }
  const secrets = secretsFromEnv(process.env);
  if (secrets.length === 0) {
    process.stderr.write('secret-scan: no HANDRAIL_SECRET_<NAME> in the environment: nothing to look for\n');
    return 2;
  }
  const { files, hits } = await scan(argv, secrets);
  for (const h of hits) process.stdout.write(`HIT ${h.file}: secret "${h.secret}" at ${h.at}\n`);
  process.stderr.write(`secret-scan: ${files} files, ${secrets.length} secrets, ${hits.length} hits\n`);
  return hits.length === 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main(process.argv.slice(2));
