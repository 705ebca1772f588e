#!/usr/bin/env node
// Runs npm scripts at once (`node scripts/parallel.mjs check:types check:lint`): each one's output is held and printed
// whole when it ends, so two reports never interleave; the exit code is the first failure's, after all have ended.
// The type check and the typed lint each keep one core busy for about a minute; side by side they take one.
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const runs = names.map(
  (name) =>
    new Promise((done) => {
      const t0 = Date.now();
      const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.stderr.on('data', (d) => out.push(d));
      child.on('close', (code, signal) => {
        const text = Buffer.concat(out).toString();
        process.stdout.write(`> ${name}: ${code === 0 ? 'ok' : `FAILED (${code ?? signal})`} in ${((Date.now() - t0) / 1000).toFixed(1)} s\n${text}`);
        done(code ?? 1);
      });
    }),
);
const codes = await Promise.all(runs);
process.exitCode = codes.find((c) => c !== 0) ?? 0;
