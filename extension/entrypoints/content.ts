// The content script: the walker and the clerk's-action catcher in every frame of the tab being recorded. It is
// not in the manifest: the worker injects it (scripting.executeScript) only into the tab a session runs on.
import { defineContentScript } from 'wxt/utils/define-content-script';
import { startAgent } from '../lib/agent.ts';

export default defineContentScript({
  registration: 'runtime',
  allFrames: true,
  matchAboutBlank: true,
  main(ctx) {
    startAgent(ctx);
  },
});
