// The content script: the walker and the clerk's-action catcher in every frame of the tab being recorded. It is
// not in the manifest: the worker injects it (scripting.executeScript) into the tab a session runs on and, while a
// record session runs, registers it for every new document of the session's origins at document_start.
// It is an unlisted script, not a WXT content script: WXT's ContentScriptContext announces itself to the page
// (a postMessage naming the extension id) and stops when the page dispatches its "started" event, so a page
// could switch the recorder off (lib/agent.ts says what replaces it).
import { defineUnlistedScript } from 'wxt/utils/define-unlisted-script';
import { startAgent } from '../lib/agent.ts';

export default defineUnlistedScript(() => {
  startAgent();
});
