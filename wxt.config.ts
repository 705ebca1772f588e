// The Chrome extension is built by WXT from extension/; the entrypoints stay thin.
import { defineConfig } from 'wxt';

export default defineConfig({
  srcDir: 'extension',
  entrypointsDir: 'entrypoints',
  outDir: '.output',
  imports: false,
  manifest: {
    name: 'Handrail',
    description: 'Record a task once in your own browser; export the trace for review.',
    permissions: ['activeTab', 'scripting', 'sidePanel', 'storage'],
  },
});
