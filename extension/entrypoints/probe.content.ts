// The main-world probe: records which elements the page listens on for a double-click, from document_start, and
// answers the recorder in the isolated world (lib/gesture-probe.ts; docs/design/extension.md, "The extension's trusted
// input"). Registered at runtime beside the recorder (lib/worker.ts), for the sites of a running record session
// only, and injected with it into a document that was open before; never in the manifest, so pages outside a
// session are not touched.
import { defineContentScript } from 'wxt/utils/define-content-script';
import { startProbe } from '../lib/gesture-probe.ts';

export default defineContentScript({
  // Runtime registration adds `matches` to host_permissions: only the hosts the manifest already allows.
  matches: ['http://127.0.0.1/*', 'http://localhost/*'],
  world: 'MAIN',
  runAt: 'document_start',
  allFrames: true,
  registration: 'runtime',
  main() {
    startProbe(window);
  },
});
