import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoStateFileFormat, demoStateSchema, emptyDemoState, restoreDemoState, snapshotDemoState } from '../../../src/main/demo/demo-persistence';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { AgentRegistry } from '../../../src/main/store/agent-registry';
import { JsonFileStore } from '../../../src/main/store/json-file-store';
import { SettingsService } from '../../../src/main/store/settings-service';
import { EndpointApprovals } from '../../../src/main/talkie/endpoint-approvals';
import { applyAguiEvent, beginRun, createThread } from '../../../src/shared/agui/run-model';
import { aguiThreadFileFormat, aguiThreadViewSchema, restoreThread, serializeThread } from '../../../src/shared/agui/thread-persistence';
import { agentEntrySchema } from '../../../src/shared/ipc/contract';
import { noticeSchema, type Notice } from '../../../src/shared/ipc/notices';
import { defaultSettings, settingsSchema } from '../../../src/shared/settings/settings';
import { memoryLogger } from '../../support/logger';
import { check, mutatedBytes, mutatedFrom, target } from '../kit';

/**
 * The saved-file readers: each store's load on arbitrary file bytes. Tested through the public
 * openers (shapes and versions may change; the rules do not): a load never throws, what it returns
 * is valid, and a file it cannot use is moved aside byte for byte, never lost.
 */

let base: string | undefined;
function scratch(): string {
  if (!base) {
    const parent = process.env.AGENTDESK_FUZZ_TMP ?? tmpdir();
    mkdirSync(parent, { recursive: true });
    base = mkdtempSync(join(parent, 'agentdesk-fuzz-files-'));
    process.once('exit', () => rmSync(base!, { recursive: true, force: true }));
  }
  return mkdtempSync(join(base, 'case-'));
}

const thread = (() => {
  let view = beginRun(createThread('thread-1'), { runId: 'run-1' });
  for (const event of [
    { type: 'RUN_STARTED', threadId: 'thread-1', runId: 'run-1' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Hello' },
    { type: 'STATE_SNAPSHOT', snapshot: { count: 1 } },
    {
      type: 'RUN_FINISHED',
      threadId: 'thread-1',
      runId: 'run-1',
      outcome: { type: 'interrupt', interrupts: [{ id: 'i-1', reason: 'confirmation', responseSchema: { type: 'boolean' } }] },
    },
  ]) {
    view = applyAguiEvent(view, event);
  }
  return view;
})();

const at = '2026-09-07T10:00:00.000Z';
const demoState = {
  schemaVersion: 2,
  savedAt: at,
  users: [
    {
      user: { id: 'user-1', name: 'Ada', email: 'ada@example.com' },
      usage: { day: '2026-09-07', runs: 3, voiceSeconds: 42 },
      threads: [
        {
          id: 'th-1',
          title: 'Hello',
          channel: 'chat',
          createdAt: at,
          updatedAt: at,
          messages: [
            { id: 'msg-1', role: 'user', content: 'hi', createdAt: at, cards: [], channel: 'chat' },
            {
              id: 'msg-2',
              role: 'assistant',
              content: 'hello',
              createdAt: at,
              cards: [
                {
                  id: 'c-1',
                  version: 1,
                  title: 'Card',
                  blocks: [
                    { type: 'text', text: 'x' },
                    { type: 'link', label: 'Docs', url: 'https://example.com' },
                  ],
                  fallbackText: 'x',
                },
              ],
              channel: 'chat',
            },
          ],
          answers: [{ messageId: 'msg-1', state: 'answered' }],
          actionIds: ['a-1', 'missing'],
        },
      ],
      actions: [
        {
          action: {
            id: 'a-1',
            version: 1,
            threadId: 'th-1',
            toolCallId: 'tc-1',
            summary: 'Write a note',
            riskLevel: 'low',
            status: 'pending',
            paramsHash: 'h',
            createdAt: at,
            expiresAt: at,
            confirm: { methods: ['button'] },
          },
          kind: 'test-note',
          params: { text: 'x' },
          decisionEvents: [],
        },
      ],
    },
  ],
};
if (!demoStateSchema.safeParse(demoState).success) throw new Error('the demo state seed is not valid');

type Kind = 'settings' | 'agents' | 'approvals' | 'aguiThread' | 'demo';
const seeds: Record<Kind, unknown[]> = {
  settings: [
    defaultSettings,
    { schemaVersion: 1, language: 'cs', appearance: { theme: 'dark', textSize: 'large' }, developer: { allowLocalHttp: true, allowPastedTokens: false } },
  ],
  agents: [
    {
      schemaVersion: 1,
      agents: [
        { id: 'a1', url: 'https://crm.example.com', display: 'crm.example.com', addedAt: at },
        { id: 'a2', url: 'http://127.0.0.1:8000/agui', display: '127.0.0.1:8000/agui', addedAt: at, protocol: 'agui' },
      ],
    },
  ],
  approvals: [
    {
      schemaVersion: 1,
      servers: { 'crm.example.com': { acceptedEndpoints: ['https://actions.example.net/a/{actionId}'] }, __proto__x: { acceptedEndpoints: [] } },
    },
    {
      schemaVersion: 2,
      servers: [
        { serverId: 'crm.example.com', issuer: 'https://crm.example.com', acceptedEndpoints: ['https://actions.example.net/a/{actionId}'] },
        { serverId: '__proto__', issuer: 'https://x.example', acceptedEndpoints: [] },
      ],
    },
  ],
  aguiThread: [JSON.parse(serializeThread(thread))],
  demo: [demoState, emptyDemoState()],
};
const fileNames: Record<Kind, string> = {
  settings: 'settings.json',
  agents: 'agents.json',
  approvals: 'talkie-servers.json',
  aguiThread: 'agui-thread.json',
  demo: 'demo-state.json',
};
const kinds = Object.keys(seeds) as Kind[];

const encoder = new TextEncoder();
const fileBytes = (kind: Kind) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...seeds[kind]).map((seed) => encoder.encode(JSON.stringify(seed, null, 2))) },
    { weight: 4, arbitrary: mutatedFrom(seeds[kind], 3).map((document) => encoder.encode(JSON.stringify(document) ?? 'undefined')) },
    {
      weight: 2,
      arbitrary: mutatedBytes(
        seeds[kind].map((seed) => encoder.encode(JSON.stringify(seed))),
        { maxEdits: 3, insertions: [[0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xc3], [0x00], [0x7b], [0x5d]] },
      ),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  );

const input = fc.constantFrom(...kinds).chain((kind) => fc.record({ kind: fc.constant(kind), bytes: fileBytes(kind) }));

/** Opens the store of `kind` in `dir` the way the app does and checks what it gives. Returns the notices. */
async function open(kind: Kind, dir: string): Promise<Notice[]> {
  const notices: Notice[] = [];
  const log = memoryLogger();
  switch (kind) {
    case 'settings': {
      const service = await SettingsService.open(dir, new EventBus(log), notices);
      check(settingsSchema.safeParse(service.get()).success, 'loaded settings are valid');
      break;
    }
    case 'agents': {
      const registry = await AgentRegistry.open(dir, new EventBus(log), notices);
      check(
        registry.list().every((agent) => agentEntrySchema.safeParse(agent).success),
        'loaded agents are valid',
      );
      break;
    }
    case 'approvals': {
      const approvals = await EndpointApprovals.open(dir, notices);
      const crm = { serverId: 'crm.example.com', issuer: 'https://crm.example.com' };
      check(
        approvals.covers(crm, []) && typeof approvals.covers({ serverId: '__proto__', issuer: 'https://x.example' }, ['https://x.example/']) === 'boolean',
        'approvals answer',
      );
      break;
    }
    case 'aguiThread': {
      const store = new JsonFileStore(join(dir, fileNames.aguiThread), aguiThreadViewSchema, () => createThread('fresh'), aguiThreadFileFormat);
      const { value, notice } = await store.load();
      if (notice) notices.push(notice);
      const restored = restoreThread(value);
      check(restored.ok, () => `a loaded thread does not restore: ${JSON.stringify(!restored.ok && restored.problems[0])}`);
      check(restoreThread(serializeThread(restored.view)).ok, 'a restored thread saves and restores again');
      break;
    }
    case 'demo': {
      const store = new JsonFileStore(join(dir, fileNames.demo), demoStateSchema, emptyDemoState, demoStateFileFormat);
      const { value, notice } = await store.load();
      if (notice) notices.push(notice);
      const spaces = restoreDemoState(value);
      const snapshot = snapshotDemoState(spaces, (userId, problem) => {
        throw new Error(`a restored user (${userId.slice(0, 40)}) cannot be saved again: ${problem}`);
      });
      check(demoStateSchema.safeParse(snapshot).success, 'a restored demo state saves again');
      break;
    }
  }
  return notices;
}

const asideFiles = (dir: string, name: string) => readdirSync(dir).filter((entry) => entry.startsWith(`${name}.corrupt-`));

export const savedFilesTarget = target({
  name: 'files.savedFiles',
  weight: 2,
  quickRuns: 50,
  arbitrary: input,
  property: async ({ kind, bytes }) => {
    const dir = scratch();
    try {
      const name = fileNames[kind];
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const notices = await open(kind, dir);
      check(
        notices.every((notice) => noticeSchema.safeParse(notice).success),
        'notices fit app.info (the notice schema)',
      );
      const aside = asideFiles(dir, name);
      if (notices.length === 0) {
        check(aside.length === 0 && Buffer.from(readFileSync(path)).equals(Buffer.from(bytes)), 'a file that loads is left as it is');
        return;
      }
      if (aside.length === 0) {
        // A newer AgentDesk's file (a version above this one's) is never moved or changed.
        check(
          notices.some((notice) => notice.message.includes('newer AgentDesk')),
          () => `a notice without a moved-aside copy is about a newer file: ${notices[0]?.message.slice(0, 200)}`,
        );
        check(Buffer.from(readFileSync(path)).equals(Buffer.from(bytes)), "a newer AgentDesk's file is left byte for byte");
        return;
      }
      check(
        aside.length === 1 && Buffer.from(readFileSync(join(dir, aside[0]!))).equals(Buffer.from(bytes)),
        'a file that cannot be used is moved aside byte for byte',
      );
      // The same bad file again (a second start right away): both copies are kept.
      writeFileSync(path, bytes);
      await open(kind, dir);
      const both = asideFiles(dir, name);
      check(both.length === 2, () => `two bad files in a row keep ${both.length} copies (${both.join(', ')})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});

export const threadTextTarget = target({
  name: 'agui.threadFile',
  weight: 5,
  arbitrary: fc.oneof(
    { weight: 4, arbitrary: mutatedFrom(seeds.aguiThread, 4).map((document) => JSON.stringify(document) ?? '') },
    { weight: 1, arbitrary: fc.string() },
  ),
  property: (text) => {
    const restored = restoreThread(text);
    if (!restored.ok) {
      check(restored.problems.length > 0 && restored.problems.length <= 20, 'problems bounded');
      return;
    }
    const { view } = restored;
    check(
      view.runState !== 'starting' && view.runState !== 'running' && view.openChunks.length === 0 && view.pendingResume === undefined,
      'a restored thread is settled',
    );
    check(restoreThread(serializeThread(view)).ok, 'restore → save → restore');
    // A restored thread takes new events without trouble.
    let next = beginRun(view, { runId: 'run-9' });
    next = applyAguiEvent(next, { type: 'RUN_STARTED', threadId: view.threadId, runId: 'run-9' });
    next = applyAguiEvent(next, { type: 'RUN_FINISHED', threadId: view.threadId, runId: 'run-9' });
    check(restoreThread(serializeThread(next)).ok, 'a restored thread stays restorable after a run');
  },
});
