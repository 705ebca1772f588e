// Long work shows progress on stderr: a bar redrawn in place with counts and ETA on a terminal, plain lines with the
// same counts anywhere else; log lines are never lost under the bar.
import { describe, expect, it } from 'vitest';
import { duration, Progress, type ProgressStream } from '../../runner/progress.ts';

function stream(isTTY: boolean): ProgressStream & { out: string } {
  return { out: '', isTTY, columns: 100, write(s: string) { this.out += s; return true; } };
}

describe('progress', () => {
  it('without a terminal: one plain line per finished item with counts, percent, elapsed and ETA; no control characters', () => {
    let t = 0;
    const s = stream(false);
    const p = new Progress({ total: 4, label: 'plates', stream: s, now: () => t });
    p.log('plate 1/4: member_number=400118');
    t = 2_000;
    p.tick('CLEAN');
    t = 4_000;
    p.tick('FAILED');
    p.log('plate 3/4: member_number=400337');
    p.finish();
    expect(s.out).toBe(
      'plate 1/4: member_number=400118\n' +
        '1/4 plates (25%) · 2.0s · ETA 6.0s · CLEAN\n' +
        '2/4 plates (50%) · 4.0s · ETA 4.0s · FAILED\n' +
        'plate 3/4: member_number=400337\n',
    );
    expect(s.out).not.toMatch(/[\r\u001b]/);
  });

  it('on a terminal: a bar redrawn in place; a log line clears it, prints, and the bar comes back under it', () => {
    let t = 0;
    const s = stream(true);
    const p = new Progress({ total: 2, label: 'runs', stream: s, now: () => t });
    expect(s.out).toBe('[------------------------------] 0/2 runs (0%) · 0.0s · ETA –');
    s.out = '';
    t = 65_000;
    p.tick();
    expect(s.out).toBe('\r\u001b[2K[###############---------------] 1/2 runs (50%) · 1m 05s · ETA 1m 05s');
    s.out = '';
    p.log('run 2: open http://127.0.0.1:1/');
    expect(s.out).toBe('\r\u001b[2Krun 2: open http://127.0.0.1:1/\n[###############---------------] 1/2 runs (50%) · 1m 05s · ETA 1m 05s');
    s.out = '';
    p.tick();
    p.finish();
    expect(s.out).toBe('\r\u001b[2K[##############################] 2/2 runs (100%) · 1m 05s · ETA 0.0s\n');
    s.out = '';
    p.log('after the bar');
    expect(s.out).toBe('after the bar\n');
  });

  it('follows the stream: a TTY stream gets the bar unless told otherwise', () => {
    const s = stream(true);
    new Progress({ total: 1, label: 'x', stream: s, tty: false }).tick();
    expect(s.out).toMatch(/^1\/1 x \(100%\)/);
    expect(duration(-1)).toBe('–');
    expect(duration(400)).toBe('0.4s');
  });
});
