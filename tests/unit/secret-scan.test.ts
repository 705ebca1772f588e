// The secret scan finds a planted secret in any spelling, anywhere under a directory (a nested log, a file's name),
// names the file and the secret but never the value, and finds nothing in clean files.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SPELLINGS } from '../../shared/secrets.ts';
import { scan, secretsFromEnv } from '../tools/secret-scan.ts';

const SECRET = 'Valid8-Horse-Staple';
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handrail-scan-'));
  await mkdir(join(dir, 'runs', 'ev-1'), { recursive: true });
  await writeFile(join(dir, 'runs', 'ev-1', 'evidence.jsonl'), '{"kind":"step","data":{"value":"[secret:password]"}}\n');
  await writeFile(join(dir, 'stdout.log'), 'SUCCESS OK all steps done\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('finds nothing in clean files', async () => {
  expect(await scan([dir], [{ name: 'password', value: SECRET }])).toEqual({ files: 2, hits: [] });
});

it('finds a base64 secret planted in a nested captured log, naming the file and the secret only', async () => {
  const file = join(dir, 'runs', 'ev-1', 'stderr.log');
  await writeFile(file, `Authorization: Basic ${Buffer.from(`OP1001:${SECRET}`).toString('base64')}\n`);
  const { hits } = await scan([dir], [{ name: 'password', value: SECRET }]);
  expect(hits).toEqual([{ file, secret: 'password', at: expect.any(Number) }]);
  expect(JSON.stringify(hits)).not.toContain(SECRET);
});

it.each(Object.entries(SPELLINGS))('finds it spelled %s', async (_name, spell) => {
  await writeFile(join(dir, 'journal.jsonl'), `{"note":"${spell(SECRET)}"}\n`);
  const { hits } = await scan([dir], [{ name: 'password', value: SECRET }]);
  expect(hits.map((h) => h.file)).toEqual([join(dir, 'journal.jsonl')]);
});

it('looks in file names too, and reads its secrets from HANDRAIL_SECRET_<NAME>', async () => {
  await writeFile(join(dir, `shot-${SECRET}.png`), 'x');
  const secrets = secretsFromEnv({ HANDRAIL_SECRET_PASSWORD: SECRET, PATH: '/bin' });
  expect(secrets).toEqual([{ name: 'password', value: SECRET }]);
  expect((await scan([dir], secrets)).hits).toHaveLength(1);
});

it("finds a secret planted in the two places added to the scan: an MCP server child's captured stderr and the extension's IndexedDB export", async () => {
  await mkdir(join(dir, 'logs'));
  // As `npm run reliability` keeps each MCP server child's stderr (tests/reliability/main.ts, restarts).
  const stderr = join(dir, 'logs', 'mcp-0-after-restart.stderr');
  await writeFile(stderr, `handrail serve: step 3/9 sign_on\nPOST /signon body=opid%3DOP1001%26pwd%3D${encodeURIComponent(SECRET)}\n`);
  // As tests/e2e/extension-edit.spec.ts writes the extension's IndexedDB (dumpIndexedDb): records inside records, JSON-escaped.
  const idb = join(dir, 'extension-export', 'indexeddb.json');
  await mkdir(join(dir, 'extension-export'));
  await writeFile(idb, JSON.stringify({ handrail: { sessions: [{ id: 's1', note: JSON.stringify({ typed: `"${SECRET}"` }) }], lines: [] } }));
  const { hits } = await scan([dir], [{ name: 'password', value: SECRET }]);
  expect(hits.map((h) => h.file).sort()).toEqual([idb, stderr].sort());
});
