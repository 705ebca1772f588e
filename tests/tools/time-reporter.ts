// A Playwright reporter that says where the suite's time went, at its end: the spec files by the time their tests
// took (summed over workers), the slowest tests, and every test that failed before it passed on its retry (with the
// failure's first line), so a flaky test is named in every run instead of hidden by the retry. CI prints it, so every
// run measures itself (issue "fast feedback").
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

const TOP_FILES = 15;
const TOP_TESTS = 15;

export default class TimeReporter implements Reporter {
  readonly #files = new Map<string, { ms: number; tests: number }>();
  readonly #tests: { title: string; ms: number }[] = [];
  /** A test's first failure, by its title, until it passes on a retry (then it is flaky) or fails for good. */
  readonly #failedFirst = new Map<string, string>();
  readonly #flaky: string[] = [];
  #started = Date.now();

  onBegin(): void {
    this.#started = Date.now();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = test.location.file.replace(/^.*\/tests\//, 'tests/');
    const entry = this.#files.get(file) ?? { ms: 0, tests: 0 };
    entry.ms += result.duration;
    if (result.retry === 0) entry.tests += 1;
    this.#files.set(file, entry);
    const title = `${file}:${test.location.line} ${test.title}`.slice(0, 150);
    this.#tests.push({ title, ms: result.duration });
    if (result.status === 'failed' || result.status === 'timedOut') {
      if (!this.#failedFirst.has(title)) this.#failedFirst.set(title, (result.error?.message ?? result.status).split('\n')[0] ?? result.status);
    } else if (result.status === 'passed' && result.retry > 0 && this.#failedFirst.has(title)) {
      this.#flaky.push(`  ${title}\n      first failed: ${this.#failedFirst.get(title)}`);
    }
  }

  onEnd(result: FullResult): void {
    const total = [...this.#files.values()].reduce((a, f) => a + f.ms, 0);
    const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
    const lines = [`\ntime: ${s(Date.now() - this.#started)} wall (${result.status}), ${s(total)} in tests summed over workers`];
    lines.push('time: spec files by their tests\' time');
    for (const [file, f] of [...this.#files].sort((a, b) => b[1].ms - a[1].ms).slice(0, TOP_FILES)) {
      lines.push(`  ${s(f.ms).padStart(8)}  ${((100 * f.ms) / (total || 1)).toFixed(1).padStart(5)} %  ${String(f.tests).padStart(3)} tests  ${file}`);
    }
    lines.push('time: slowest tests');
    for (const t of this.#tests.sort((a, b) => b.ms - a.ms).slice(0, TOP_TESTS)) lines.push(`  ${s(t.ms).padStart(8)}  ${t.title}`);
    lines.push(`time: flaky (failed, then passed on the retry): ${this.#flaky.length}`, ...this.#flaky);
    process.stdout.write(`${lines.join('\n')}\n`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
