// The fake helper (docs/design/mac.md, "The mac surface"): a Node program that speaks the helper protocol
// (mac-agent/protocol.ts) over stdio exactly as the Swift helper does, serving the recorded TextEdit
// (./textedit.ts). It checks what the Swift helper checks before touching AX — AXEnabled before AXPress, a granted
// permission — and passes everything else to the recording, which answers as AX would.
//
// Set by the environment, because the client spawns it like any helper:
//   HANDRAIL_MAC_FAKE_STATE=FILE     the fake file system: saved files are read from and written to FILE (JSON)
//   HANDRAIL_MAC_FAKE_VARIANT=expanded   the Save sheet opens expanded (many text fields)
//   HANDRAIL_MAC_FAKE_HUMAN_AFTER=N  with the tap started, a person presses a key after the Nth perform or set
//   HANDRAIL_MAC_FAKE_PERMISSIONS=none   Accessibility and Input Monitoring are not granted
import { readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { HelperEvent, PROTOCOL_VERSION, Request, RESULTS, Response, SavedFile, type HelperErrorCode, type Method } from '../protocol.ts';
import { z } from 'zod';
import { AxFault, FakeTextEdit, TEXTEDIT_BUNDLE, type Emitted } from './textedit.ts';

const env = process.env;
const statePath = env['HANDRAIL_MAC_FAKE_STATE'];
const humanAfter = env['HANDRAIL_MAC_FAKE_HUMAN_AFTER'] ? Number(env['HANDRAIL_MAC_FAKE_HUMAN_AFTER']) : null;
const granted = env['HANDRAIL_MAC_FAKE_PERMISSIONS'] !== 'none';
const expanded = env['HANDRAIL_MAC_FAKE_VARIANT'] === 'expanded';

class Refused extends Error {
  constructor(
    readonly code: HelperErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function loadFiles(app: FakeTextEdit): void {
  if (!statePath) return;
  try {
    const files = z.array(SavedFile).parse((JSON.parse(readFileSync(statePath, 'utf8')) as { files?: unknown }).files ?? []);
    for (const f of files) app.files.set(f.path, f.text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

let app: FakeTextEdit | null = null;
let observing = false;
let tapping = false;
let acts = 0;

function send(line: Response | HelperEvent): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function emit(events: Emitted[]): void {
  if (!observing || !app) return;
  for (const e of events) send({ v: PROTOCOL_VERSION, event: 'ax', notification: e.notification, pid: app.pid, ...(e.ref ? { ref: e.ref } : {}) });
}

function human(kind: 'key' | 'mouse'): void {
  if (tapping) send({ v: PROTOCOL_VERSION, event: 'input', kind, at: Date.now() });
}

function running(): FakeTextEdit {
  if (!granted) throw new Refused('permission_missing', 'Accessibility is not granted to the helper (System Settings > Privacy & Security > Accessibility)');
  if (!app) throw new Refused('no_such_app', 'no app is open: send open first');
  return app;
}

function afterAct(): void {
  acts++;
  if (statePath && app) writeFileSync(statePath, JSON.stringify({ files: app.savedFiles() }));
  if (humanAfter !== null && acts === humanAfter) human('key');
}

function handle(req: Request): unknown {
  switch (req.method) {
    case 'hello':
      if (req.params.version !== PROTOCOL_VERSION) throw new Refused('version_mismatch', `the fake speaks protocol ${PROTOCOL_VERSION}, the client ${req.params.version}`);
      return { version: PROTOCOL_VERSION, helper: 'fake-textedit', platform: process.platform };
    case 'open':
      if (req.params.bundleId !== TEXTEDIT_BUNDLE) throw new Refused('no_such_app', `the fake has a recording of ${TEXTEDIT_BUNDLE} only, not ${req.params.bundleId}`);
      if (!granted) throw new Refused('permission_missing', 'Accessibility is not granted to the helper');
      app = new FakeTextEdit({ expanded });
      loadFiles(app);
      return { pid: app.pid, name: 'TextEdit' };
    case 'snapshot': {
      const a = running();
      if (req.params.pid !== a.pid) throw new Refused('no_such_app', `no app with pid ${req.params.pid}`);
      return { root: a.snapshot(req.params.scope, req.params.maxDepth) };
    }
    case 'perform': {
      const a = running();
      // The Swift helper reads AXEnabled before AXPress: AX itself would answer success and do nothing.
      if (req.params.action === 'AXPress' && !a.enabled(req.params.ref)) throw new Refused('disabled', `${req.params.ref} is disabled (AXEnabled is false): not pressed`);
      emit(a.perform(req.params.ref, req.params.action));
      afterAct();
      return {};
    }
    case 'set': {
      const a = running();
      emit(a.set(req.params.ref, req.params.attr, req.params.value));
      afterAct();
      return {};
    }
    case 'observe':
      running();
      observing = true;
      return {};
    case 'permissions':
      return { accessibility: granted, inputMonitoring: granted };
    case 'tap.start':
      if (!granted) throw new Refused('permission_missing', 'Input Monitoring is not granted to the helper (System Settings > Privacy & Security > Input Monitoring)');
      tapping = true;
      return {};
    case 'tap.stop':
      tapping = false;
      return {};
    case 'fake.files':
      return { files: app ? app.savedFiles() : [] };
    case 'fake.human':
      human(req.params.kind);
      return {};
  }
}

function answer(raw: string): void {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    send({ v: PROTOCOL_VERSION, id: 0, ok: false, error: { code: 'bad_request', message: 'not a JSON line' } });
    return;
  }
  const id = typeof (json as { id?: unknown }).id === 'number' ? (json as { id: number }).id : 0;
  const parsed = Request.safeParse(json);
  if (!parsed.success) {
    const method = (json as { method?: unknown }).method;
    const known = typeof method === 'string' && method in RESULTS;
    const code: HelperErrorCode = known ? 'bad_request' : 'unknown_method';
    send({ v: PROTOCOL_VERSION, id, ok: false, error: { code, message: known ? `bad ${method} request: ${parsed.error.issues[0]?.message ?? ''}` : `no method ${String(method)}` } });
    return;
  }
  try {
    const result = RESULTS[parsed.data.method as Method].parse(handle(parsed.data));
    send({ v: PROTOCOL_VERSION, id, ok: true, result });
  } catch (e) {
    const code: HelperErrorCode = e instanceof Refused || e instanceof AxFault ? e.code : 'internal';
    send({ v: PROTOCOL_VERSION, id, ok: false, error: { code, message: (e as Error).message } });
  }
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (l) => {
  if (l.trim()) answer(l);
});
rl.on('close', () => process.exit(0));
