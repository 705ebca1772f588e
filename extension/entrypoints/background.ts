// The MV3 service worker: the session machine (lib/host.ts) over IndexedDB. It may be stopped at any moment;
// everything it needs to go on is in IndexedDB, and it settles what the last worker left when it starts.
import { defineBackground } from 'wxt/utils/define-background';
import { startWorker } from '../lib/worker.ts';

export default defineBackground(() => {
  startWorker();
});
