import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startAgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';
import { deviceKeyFileEnv } from '../../../src/main/nfc/device-key';
import type { ReaderLauncher, ReaderLaunchHandlers } from '../../../src/main/nfc/reader-supervisor';
import type { AgentCallOpenResponse } from '../../../src/shared/agentcall/ipc-schemas';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import type { ReaderToMain } from '../../../src/shared/nfc/reader-protocol';
import { memoryLogger } from '../../support/logger';
import { startTestServices } from '../../support/services';
import { useTempDirs } from '../../support/temp-dir';

/**
 * A session opened before any reader is plugged in still offers NFC to the agent (the app's real
 * NFC service with a reader process played by the test): the reader plugged in later is used.
 */

const tempDir = useTempDirs();
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.unstubAllEnvs();
  await Promise.all(open.splice(0).map((item) => item.close()));
});

function fakeReaders() {
  let handlers: ReaderLaunchHandlers | undefined;
  const launcher: ReaderLauncher = (given) => {
    handlers = given;
    return {
      pid: 4001,
      send: (message) => {
        if (message.type === 'shutdown') setTimeout(() => given.onExit(0, null), 1);
      },
      kill: () => void setTimeout(() => given.onExit(null, 'SIGKILL'), 1),
    };
  };
  return { launcher, say: (message: ReaderToMain) => handlers?.onMessage(message) };
}

describe('AgentCall and a reader plugged in after the session started', () => {
  it('offers nfc with no reader connected at the start, so a later reader can answer', async () => {
    const dir = await tempDir();
    const keyFile = join(dir, 'nfc-device.key');
    await writeFile(keyFile, randomBytes(32), { mode: 0o600 });
    vi.stubEnv(deviceKeyFileEnv, keyFile);
    const demo = await startAgentCallDemoServer({ log: memoryLogger() });
    open.push(demo);
    const readers = fakeReaders();
    const services = await startTestServices(dir, {
      nfc: { launcher: readers.launcher },
      demo: { start: async () => ({ baseUrl: 'http://127.0.0.1:9', token: 'unused', agentCallCardUrl: demo.cardUrl }) },
    });
    open.push({ close: () => services.dispose() });
    readers.say({ type: 'hello', version: 1, pid: 1 });
    readers.say({ type: 'service', state: 'ready' });
    readers.say({ type: 'readers', readers: [] });

    const opened = await services.call('agentcall.open', { agentId: builtInAgentCallDemoId });
    expect(opened.ok).toBe(true);
    const { updates } = (opened as { ok: true; value: AgentCallOpenResponse }).value;
    const starting = updates.find((update) => update.type === 'session.starting');
    expect(starting).toMatchObject({ usableModalities: ['nfc', 'photo'] });
  });
});
