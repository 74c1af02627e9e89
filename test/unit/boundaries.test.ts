import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The runtime boundaries are lint rules (eslint.config.js). Each case lints a snippet as if it
 * were a file at that path and expects the rule to fire, or to stay quiet for allowed imports.
 */
const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`);
}

describe('runtime boundaries', () => {
  it.each([
    ['src/shared/probe.ts', "import { readFile } from 'node:fs';\nvoid readFile;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { readFile } from 'fs';\nvoid readFile;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { app } from 'electron';\nvoid app;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { createRoot } from 'react-dom/client';\nvoid createRoot;", 'no-restricted-imports'],
    ['src/shared/probe.ts', 'export const title = document.title;', 'no-restricted-globals'],
    ['src/shared/probe.ts', "import { EventBus } from '../main/ipc/event-bus';\nvoid EventBus;", 'import-x/no-restricted-paths'],
    ['src/shared/probe.ts', "import { connectBridge } from '../renderer/bridge/agentdesk';\nvoid connectBridge;", 'import-x/no-restricted-paths'],
    ['src/renderer/probe.ts', "import { EventBus } from '../main/ipc/event-bus';\nvoid EventBus;", 'import-x/no-restricted-paths'],
    ['src/renderer/probe.ts', "import { ipcRenderer } from 'electron';\nvoid ipcRenderer;", 'no-restricted-imports'],
    ['src/renderer/probe.ts', "import { join } from 'node:path';\nvoid join;", 'no-restricted-imports'],
    ['src/preload/probe.ts', "import { EventBus } from '../main/ipc/event-bus';\nvoid EventBus;", 'import-x/no-restricted-paths'],
    ['src/preload/probe.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;", 'no-restricted-imports'],
    ['src/preload/probe.ts', "import React from 'react';\nvoid React;", 'no-restricted-imports'],
    ['src/main/probe.ts', "import { connectBridge } from '../renderer/bridge/agentdesk';\nvoid connectBridge;", 'import-x/no-restricted-paths'],
  ])('%s: %s → %s', async (file, code, rule) => {
    expect((await problems(file, code)).join('\n')).toContain(rule);
  });

  it.each([
    ['src/shared/probe.ts', "import { z } from 'zod';\nexport const s = z.string();"],
    ['src/renderer/probe.ts', "import { contract } from '../shared/ipc/contract';\nexport const c = contract;"],
    ['src/preload/probe.ts', "import { contextBridge } from 'electron';\nimport { buildApi } from '../shared/ipc/api';\nvoid contextBridge;\nvoid buildApi;"],
    ['src/main/probe.ts', "import { readFile } from 'node:fs/promises';\nimport { contract } from '../shared/ipc/contract';\nvoid readFile;\nvoid contract;"],
  ])('%s may import what its runtime has', async (file, code) => {
    expect(await problems(file, code)).toEqual([]);
  });
});
