// The folder rules of docs/design/README.md hold on the real tree, and each rule really fails on a violating import.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkFile, checkTree } from '../tools/import-direction.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('import direction', () => {
  it('the repository as it stands has no violations', () => {
    expect(checkTree(root)).toEqual([]);
  });

  it.each([
    ['shared/x.ts', "import { readFile } from 'node:fs';", 'Node built-ins'],
    ['shared/x.ts', "import fs from 'fs';", 'Node built-ins'],
    ['shared/x.ts', "import { chromium } from 'playwright-core';", 'Playwright'],
    ['shared/x.ts', "import Anthropic from '@anthropic-ai/sdk';", 'model SDK'],
    ['shared/x.ts', "import browser from 'webextension-polyfill';", 'extension APIs'],
    ['shared/x.ts', "import { x } from '../runner/engine/engine.ts';", 'shared/ imports only shared/'],
    ['runner/engine/engine.ts', "import Anthropic from '@anthropic-ai/sdk';", 'never imports a model SDK'],
    ['extension/a.ts', "import { x } from '../runner/cli/main.ts';", 'must not import runner/'],
    ['runner/a.ts', "import { x } from '../extension/a.ts';", 'must not import extension/'],
    ['terminal-agent/a.ts', "import { x } from '../mac-agent/a.ts';", 'must not import mac-agent/'],
    ['demo/plumbline/a.ts', "import { x } from '../../shared/schema/index.ts';", 'demo/ imports nothing'],
    ['runner/engine/a.ts', "import { x } from '../../demo/plumbline/server.ts';", 'only the demo launcher'],
  ])('%s: %s is refused (%s)', (file, source, why) => {
    const v = checkFile(root, file, source);
    expect(v).toHaveLength(1);
    expect(v[0]?.rule).toContain(why);
  });

  it.each([
    ['runner/browser/surface.ts', "import { chromium } from 'playwright-core';"],
    ['runner/a.ts', "import { x } from '../terminal-agent/surface.ts';"],
    ['runner/cli/demo.ts', "import { startBank } from '../../demo/plumbline/server.ts';"],
    ['shared/menu.ts', "import { z } from 'zod';"],
  ])('%s may: %s', (file, source) => {
    expect(checkFile(root, file, source)).toEqual([]);
  });
});
