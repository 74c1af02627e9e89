import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
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
    // src/main's floors: each imports only the floors below it.
    ['src/main/store/probe.ts', "import { TalkieService } from '../talkie/talkie-service';\nvoid TalkieService;", 'import-x/no-restricted-paths'],
    ['src/main/net/probe.ts', "import { NfcService } from '../nfc/nfc-service';\nvoid NfcService;", 'import-x/no-restricted-paths'],
    ['src/main/ipc/probe.ts', "import { createTokenStore } from '../auth/token-store';\nvoid createTokenStore;", 'import-x/no-restricted-paths'],
    ['src/main/platform/probe.ts', "import { startAppServices } from '../app/app-services';\nvoid startAppServices;", 'import-x/no-restricted-paths'],
    ['src/main/secrets/probe.ts', "import { startWebShell } from '../webshell/server';\nvoid startWebShell;", 'import-x/no-restricted-paths'],
    ['src/main/auth/probe.ts', "import { TalkieService } from '../talkie/talkie-service';\nvoid TalkieService;", 'import-x/no-restricted-paths'],
    ['src/main/talkie/probe.ts', "import { identifyAgent } from '../agents/identify-agent';\nvoid identifyAgent;", 'import-x/no-restricted-paths'],
    ['src/main/agentcall/probe.ts', "import { startAppServices } from '../app/app-services';\nvoid startAppServices;", 'import-x/no-restricted-paths'],
    ['src/main/photo/probe.ts', "import { main } from '../cli/main';\nvoid main;", 'import-x/no-restricted-paths'],
    ['src/main/agents/probe.ts', "import { startAppServices } from '../app/app-services';\nvoid startAppServices;", 'import-x/no-restricted-paths'],
    ['src/main/app/probe.ts', "import { startWebShell } from '../webshell/server';\nvoid startWebShell;", 'import-x/no-restricted-paths'],
    ['src/main/app/probe.ts', "import { appOrigin } from '../electron/security';\nvoid appOrigin;", 'import-x/no-restricted-paths'],
    // The demo is fenced: only app/ and cli/ start it.
    ['src/main/talkie/probe.ts', "import { startDemo } from '../demo/start-demo';\nvoid startDemo;", 'import-x/no-restricted-paths'],
    ['src/main/agents/probe.ts', "import { startDemo } from '../demo/start-demo';\nvoid startDemo;", 'import-x/no-restricted-paths'],
    ['src/main/webshell/probe.ts', "import { startDemo } from '../demo/start-demo';\nvoid startDemo;", 'import-x/no-restricted-paths'],
    ['src/main/electron/probe.ts', "import { startDemo } from '../demo/start-demo';\nvoid startDemo;", 'import-x/no-restricted-paths'],
  ])('%s: %s → %s', async (file, code, rule) => {
    expect((await problems(file, code)).join('\n')).toContain(rule);
  });

  it.each([
    ['src/shared/probe.ts', "import { z } from 'zod';\nexport const s = z.string();"],
    ['src/renderer/probe.ts', "import { contract } from '../shared/ipc/contract';\nexport const c = contract;"],
    ['src/preload/probe.ts', "import { contextBridge } from 'electron';\nimport { buildApi } from '../shared/ipc/api';\nvoid contextBridge;\nvoid buildApi;"],
    ['src/main/probe.ts', "import { readFile } from 'node:fs/promises';\nimport { contract } from '../shared/ipc/contract';\nvoid readFile;\nvoid contract;"],
    ['src/main/talkie/probe.ts', "import { JsonFileStore } from '../store/json-file-store';\nimport type { TokenStore } from '../auth/token-store';\nvoid JsonFileStore;\nexport type T = TokenStore;"],
    ['src/main/agents/probe.ts', "import { discoverTalkie } from '../talkie/discovery';\nvoid discoverTalkie;"],
    ['src/main/app/probe.ts', "import { startDemo } from '../demo/start-demo';\nimport { TalkieService } from '../talkie/talkie-service';\nvoid startDemo;\nvoid TalkieService;"],
    ['src/main/cli/probe.ts', "import { startDemo } from '../demo/start-demo';\nimport { startAppServices } from '../app/app-services';\nvoid startDemo;\nvoid startAppServices;"],
    ['src/main/electron/probe.ts', "import { startAppServices } from '../app/app-services';\nvoid startAppServices;"],
  ])('%s may import what its runtime has', async (file, code) => {
    expect(await problems(file, code)).toEqual([]);
  });
});

/** Every relative import between two src/main folders, as "from->to" → the importing files. */
function mainFolderImports(): Map<string, string[]> {
  const root = resolve(new URL('../../src/main', import.meta.url).pathname);
  const folderOf = (path: string): string | undefined => {
    const parts = relative(root, path).split('/');
    return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
  };
  const edges = new Map<string, string[]>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.tsx?$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const from = folderOf(file);
    if (!from) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.[^'"]+)['"]/g)) {
      const to = folderOf(resolve(dirname(file), match[1]!));
      if (to && to !== from) edges.set(`${from}->${to}`, [...(edges.get(`${from}->${to}`) ?? []), relative(root, file)]);
    }
  }
  return edges;
}

describe("src/main's floors", () => {
  it('has no two folders that import each other', () => {
    const edges = mainFolderImports();
    expect(edges.size).toBeGreaterThan(10); // the parser sees imports at all
    const mutual = [...edges.keys()]
      .map((edge) => edge.split('->') as [string, string])
      .filter(([from, to]) => from < to && edges.has(`${to}->${from}`))
      .map(([a, b]) => `${a} <-> ${b}: ${[...edges.get(`${a}->${b}`)!, ...edges.get(`${b}->${a}`)!].join(', ')}`);
    expect(mutual).toEqual([]);
  });

  it('gives every src/main folder a floor (eslint.config.js mainFloors)', async () => {
    const config = (await eslint.calculateConfigForFile('src/main/probe.ts')) as { rules: Record<string, [unknown, { zones: { target: string | string[]; from: string | string[] }[] }]> };
    const zoned = new Set(
      config.rules['import-x/no-restricted-paths']![1].zones.flatMap((zone) => [zone.target, zone.from].flat()).flatMap((path) => /^\.\/src\/main\/([^/]+)$/.exec(path)?.[1] ?? []),
    );
    const root = new URL('../../src/main', import.meta.url).pathname;
    const folders = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    expect(folders.filter((folder) => !zoned.has(folder))).toEqual([]);
  });
});
