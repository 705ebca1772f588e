// Test support: every file under a directory (for "the secret appears nowhere" checks).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

export async function filesUnder(dir: string): Promise<string[]> {
  if (!dir) return [];
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}
