import { ESLint } from 'eslint';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

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
  // The first lint loads the config and the TypeScript parser (seconds on a busy machine): once, not inside the first case.
  beforeAll(() => problems('src/shared/warm-up.ts', 'export {};'), 60_000);

  it.each([
    ['src/shared/probe.ts', "import { readFile } from 'node:fs';\nvoid readFile;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { readFile } from 'fs';\nvoid readFile;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { app } from 'electron';\nvoid app;", 'no-restricted-imports'],
    ['src/shared/probe.ts', "import { createRoot } from 'react-dom/client';\nvoid createRoot;", 'no-restricted-imports'],
    ['src/shared/probe.ts', 'export const title = document.title;', 'no-restricted-globals'],
    ['src/shared/probe.ts', "import { EventBus } from '../main/ipc/event-bus';\nvoid EventBus;", 'import-x/no-restricted-paths'],
    ['src/shared/probe.ts', "import { connectBridge } from '../renderer/bridge/agentdesk';\nvoid connectBridge;", 'import-x/no-restricted-paths'],
    // src/shared's floors: base at the bottom, the contract (ipc) at the top.
    ['src/shared/agents/probe.ts', "import { contract } from '../ipc/contract';\nvoid contract;", 'import-x/no-restricted-paths'],
    ['src/shared/base/probe.ts', "import { conversationBounds } from '../conversation/bounds';\nvoid conversationBounds;", 'import-x/no-restricted-paths'],
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
    // The NFC reader process (its own process): its own files, src/shared, Node.js built-ins and nfc-pcsc.
    ['src/main/nfc/reader-worker.ts', "import { app } from 'electron';\nvoid app;", "'electron' is not a package the NFC reader process runtime may import"],
    [
      'src/main/nfc/reader-process.ts',
      "import { guardedRequest } from '../net/guarded-fetch';\nvoid guardedRequest;",
      "'../net/guarded-fetch': the NFC reader process runs alone",
    ],
    [
      'src/main/nfc/tag-read.ts',
      "import { createTokenStore } from '../auth/token-store';\nvoid createTokenStore;",
      "'../auth/token-store': the NFC reader process runs alone",
    ],
    [
      'src/main/nfc/reader-worker.ts',
      "export const load = () => import('../store/settings-service');",
      "'../store/settings-service': the NFC reader process runs alone",
    ],
    ['src/main/nfc/reader-worker.ts', "import { NfcService } from './nfc-service';\nvoid NfcService;", "'./nfc-service': the NFC reader process runs alone"],
    ['src/main/nfc/built-entry.ts', "import WebSocket from 'ws';\nvoid WebSocket;", "'ws' is not a package the NFC reader process runtime may import"],
    // The speech engine process (its own process): its own files, src/shared, Node.js built-ins and sherpa-onnx-node.
    ['src/main/speech/sherpa-engine.ts', "import WebSocket from 'ws';\nvoid WebSocket;", "'ws' is not a package the speech engine process runtime may import"],
    [
      'src/main/speech/engine-worker.ts',
      "import { SpeechService } from './speech-service';\nvoid SpeechService;",
      "'./speech-service': the speech engine process runs alone",
    ],
    [
      'src/main/speech/speech-service.ts',
      "export const load = () => import('sherpa-onnx-node');",
      "'sherpa-onnx-node' is not a package the main runtime may import",
    ],
    // Each runtime imports only the npm packages eslint.config.js runtimePackages lists for it.
    ['src/shared/probe.ts', "import sharp from 'sharp';\nvoid sharp;", "'sharp' is not a package the shared runtime may import"],
    [
      'src/renderer/probe.ts',
      "import { createParser } from 'eventsource-parser';\nvoid createParser;",
      "'eventsource-parser' is not a package the renderer runtime may import",
    ],
    ['src/renderer/probe.ts', "export const load = () => import('oauth4webapi');", "'oauth4webapi' is not a package the renderer runtime may import"],
    ['src/preload/probe.ts', "export { z } from 'zod';", "'zod' is not a package the preload runtime may import"],
    [
      'src/main/talkie/probe.ts',
      "import { createRoot } from 'react-dom/client';\nvoid createRoot;",
      "'react-dom' is not a package the main runtime may import",
    ],
    ['src/main/app/probe.ts', "import { app } from 'electron';\nvoid app;", "'electron' is not a package the main runtime may import"],
    ['src/main/app/probe.ts', "export const load = () => import('oidc-provider');", "'oidc-provider' is not a package the main runtime may import"],
    [
      'src/main/electron/probe.ts',
      "import { Provider } from 'oidc-provider';\nvoid Provider;",
      "'oidc-provider' is not a package the main/electron runtime may import",
    ],
    ['src/main/demo/probe.ts', "import { app } from 'electron';\nvoid app;", "'electron' is not a package the main/demo runtime may import"],
    ['src/main/talkie/probe.ts', "import * as ndc from 'node-datachannel';\nvoid ndc;", "'node-datachannel' is not a package the main runtime may import"],
    ['src/main/cli/probe.ts', "export const load = () => import('opusscript');", "'opusscript' is not a package the main/cli runtime may import"],
  ])('%s: %s → %s', async (file, code, rule) => {
    expect((await problems(file, code)).join('\n')).toContain(rule);
  });

  it.each([
    ['src/shared/probe.ts', "import { z } from 'zod';\nexport const s = z.string();"],
    ['src/renderer/probe.ts', "import { contract } from '../shared/ipc/contract';\nexport const c = contract;"],
    ['src/preload/probe.ts', "import { contextBridge } from 'electron';\nimport { buildApi } from '../shared/ipc/api';\nvoid contextBridge;\nvoid buildApi;"],
    ['src/main/probe.ts', "import { readFile } from 'node:fs/promises';\nimport { contract } from '../shared/ipc/contract';\nvoid readFile;\nvoid contract;"],
    [
      'src/main/talkie/probe.ts',
      "import { JsonFileStore } from '../store/json-file-store';\nimport type { TokenStore } from '../auth/token-store';\nvoid JsonFileStore;\nexport type T = TokenStore;",
    ],
    ['src/main/agents/probe.ts', "import { discoverTalkie } from '../talkie/discovery';\nvoid discoverTalkie;"],
    [
      'src/main/app/probe.ts',
      "import { startDemo } from '../demo/start-demo';\nimport { TalkieService } from '../talkie/talkie-service';\nvoid startDemo;\nvoid TalkieService;",
    ],
    [
      'src/main/cli/probe.ts',
      "import { startDemo } from '../demo/start-demo';\nimport { startAppServices } from '../app/app-services';\nvoid startDemo;\nvoid startAppServices;",
    ],
    ['src/main/electron/probe.ts', "import { startAppServices } from '../app/app-services';\nvoid startAppServices;"],
    [
      'src/main/nfc/reader-worker.ts',
      "import { existsSync } from 'node:fs';\nimport type { NFC } from 'nfc-pcsc';\nimport { toHex } from '../../shared/nfc/bytes';\nimport { readUid } from './tag-read';\nexport const load = () => import('nfc-pcsc');\nvoid existsSync;\nvoid toHex;\nvoid readUid;\nexport type N = NFC;",
    ],
    ['src/shared/probe.ts', "import { EventSchemas } from '@ag-ui/core/schemas';\nvoid EventSchemas;"],
    [
      'src/shared/talkie/probe.ts',
      "import { ServiceError } from '../base/errors';\nimport { conversationBounds } from '../conversation/bounds';\nvoid ServiceError;\nvoid conversationBounds;",
    ],
    ['src/renderer/probe.ts', "import Markdown from 'react-markdown';\nimport remarkGfm from 'remark-gfm';\nvoid Markdown;\nvoid remarkGfm;"],
    ['src/main/electron/probe.ts', "import { app } from 'electron';\nimport WebSocket from 'ws';\nvoid app;\nvoid WebSocket;"],
    ['src/main/demo/probe.ts', "import { Provider } from 'oidc-provider';\nimport sharp from 'sharp';\nvoid Provider;\nvoid sharp;"],
    ['src/main/cli/probe.ts', "import * as ndc from 'node-datachannel';\nimport WebSocket from 'ws';\nvoid ndc;\nvoid WebSocket;"],
    ['src/main/nfc/nfc-service-probe.ts', "import { SecretStore } from '../secrets/secret-store';\nvoid SecretStore;"],
    ['test/unit/probe.test.ts', "import { app } from 'electron';\nimport { Provider } from 'oidc-provider';\nvoid app;\nvoid Provider;"],
    ['bench/probe.ts', "import sharp from 'sharp';\nimport { render } from '@testing-library/react';\nvoid sharp;\nvoid render;"],
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

describe('packages per runtime', () => {
  it('lists every npm package the app depends on for some runtime, and nothing it does not depend on', async () => {
    const listed = new Set<string>();
    for (const file of [
      'src/shared/p.ts',
      'src/renderer/p.tsx',
      'src/preload/p.ts',
      'src/main/p.ts',
      'src/main/electron/p.ts',
      'src/main/demo/p.ts',
      'src/main/nfc/reader-worker.ts',
      'src/main/speech/engine-worker.ts',
    ]) {
      const config = (await eslint.calculateConfigForFile(file)) as { rules: Record<string, [unknown, { packages: string[] }]> };
      for (const name of config.rules['agentdesk/runtime-imports']![1].packages) listed.add(name);
    }
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<string, Record<string, string>>;
    const dependencies = [...Object.keys(manifest.dependencies!), ...Object.keys(manifest.optionalDependencies!)];
    expect(dependencies.filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !dependencies.includes(name) && !(name in manifest.devDependencies!))).toEqual([]);
  });
});

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
    const config = (await eslint.calculateConfigForFile('src/main/probe.ts')) as {
      rules: Record<string, [unknown, { zones: { target: string | string[]; from: string | string[] }[] }]>;
    };
    const zoned = new Set(
      config.rules['import-x/no-restricted-paths']![1].zones.flatMap((zone) => [zone.target, zone.from].flat()).flatMap(
        (path) => /^\.\/src\/main\/([^/]+)$/.exec(path)?.[1] ?? [],
      ),
    );
    const root = new URL('../../src/main', import.meta.url).pathname;
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(folders.filter((folder) => !zoned.has(folder))).toEqual([]);
  });
});

describe('severities', () => {
  it('makes every rule an error except max-lines, a warning at 400 lines of code in src (issue #29)', async () => {
    for (const file of ['src/main/app/app-services.ts', 'src/renderer/App.tsx', 'test/unit/boundaries.test.ts']) {
      const config = (await eslint.calculateConfigForFile(file)) as {
        rules: Record<string, unknown[]>;
        linterOptions?: { reportUnusedDisableDirectives?: unknown };
      };
      const warnings = Object.entries(config.rules)
        .filter(([, [severity]]) => severity === 1 || severity === 'warn')
        .map(([name]) => name);
      expect(warnings, file).toEqual(file.startsWith('src/') ? ['max-lines'] : []);
      if (file.startsWith('src/')) expect(config.rules['max-lines']?.[1]).toMatchObject({ max: 400 });
      expect(config.linterOptions?.reportUnusedDisableDirectives, file).toBe(2);
    }
  });

  it('names a source file over 400 lines of code as a warning, not an error', async () => {
    const code = Array.from({ length: 401 }, (_, index) => `export const value${index} = ${index};`).join('\n');
    const [result] = await eslint.lintText(code, { filePath: 'src/shared/probe.ts' });
    expect(result?.messages.map((message) => [message.ruleId, message.severity])).toEqual([['max-lines', 1]]);
  });
});
