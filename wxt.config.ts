// The Chrome extension is built by WXT from extension/; the entrypoints stay thin (STYLE.md 7).
import { defineConfig } from 'wxt';

export default defineConfig({
  srcDir: 'extension',
  entrypointsDir: 'entrypoints',
  outDir: '.output',
  imports: false,
  // Preact through the automatic JSX runtime. Vite 8 transforms TS/JSX with oxc (its `esbuild` option is only a
  // compatibility shim there), so the runtime is named on oxc's options.
  vite: () => ({
    oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  }),
  manifest: {
    name: 'Handrail',
    description: 'Record a task once in your own browser; export the trace for review.',
    // The least that works: scripting runs the walker in the tab's frames, storage keeps the key and settings,
    // sidePanel is the UI, activeTab covers the tab the clerk opened the panel on, webRequest sees the writes the
    // recorded tab sends (observe-only; docs/design/writes.md, "Writes"), debugger sends the trusted keys, hovers,
    // double-clicks and list picks a page script cannot (docs/design/extension.md, "The extension's trusted input").
    permissions: ['activeTab', 'debugger', 'scripting', 'sidePanel', 'storage', 'webRequest'],
    // Always allowed: the Anthropic API and loopback (a bank or a fake Messages API on the clerk's own machine,
    // and the headless tests, which cannot click a permission prompt).
    host_permissions: ['https://api.anthropic.com/*', 'http://127.0.0.1/*', 'http://localhost/*'],
    // Any other site is asked for, one origin at a time, when the clerk starts a session on it — https only: the
    // recorder sees what the clerk types (a password among it), and a plain-http page could be anyone on the
    // network path. Plain http is for development, and only on this machine (the loopback hosts above).
    optional_host_permissions: ['https://*/*'],
    action: { default_title: 'Handrail' },
  },
});
