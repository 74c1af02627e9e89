import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DemoStatePersister,
  demoStateLimits,
  demoStateSchema,
  demoStateVersion,
  restoreDemoState,
  snapshotDemoState,
  type DemoState,
} from '../../../src/main/demo/demo-persistence';
import { demoUser, UserSpace } from '../../../src/main/demo/demo-store';
import type { TalkieDemoServer } from '../../../src/main/demo/talkie-demo-server';
import { JsonFileStore } from '../../../src/main/store/json-file-store';
import type { Notice } from '../../../src/shared/ipc/notices';
import { memoryLogger } from '../../support/logger';
import { chattrUnavailable, useFaultyFolders } from '../../support/faulty-folders';
import { useTempDirs } from '../../support/temp-dir';
import { api, custom, expectValidRun, getThread, ofType, runInput, sleep, stream, text, useDemoServers, waitFor, type Json } from './demo-helpers';

// Registered in this order so that, after each test, the servers close (and write what is unsaved)
// before the folder is made writable again and removed: the other order raced (ENOTEMPTY in rmdir).
const tempDir = useTempDirs();
const faulty = useFaultyFolders();
// Undo window: 10 s × 0.05 = 500 ms; slow run: 20 deltas × 12.5 ms.
const start = useDemoServers({ timeScale: 0.05 });
if (chattrUnavailable() !== undefined) console.warn(`demo-persistence.test: the refused-save test is skipped: ${chattrUnavailable() ?? ''}`);

afterEach(() => {
  vi.restoreAllMocks();
});

interface Action {
  id: string;
  threadId: string;
  status: string;
  paramsHash: string;
  undoUntil?: string;
}

async function propose(server: TalkieDemoServer, message: string, threadId?: string) {
  const run = await stream(server, runInput(message, threadId === undefined ? {} : { threadId }));
  const [action] = custom(run.events, 'talkie.action') as unknown as Action[];
  if (!action) throw new Error('no action proposed');
  return action;
}

const decide = (server: TalkieDemoServer, action: Action, decision: 'confirm' | 'cancel') =>
  api(server, 'POST', `/api/talkie/actions/${encodeURIComponent(action.id)}/decision`, {
    body: { decision, paramsHash: action.paramsHash, method: 'button' },
  });

const getAction = async (server: TalkieDemoServer, id: string) =>
  (await api(server, 'GET', `/api/talkie/actions/${encodeURIComponent(id)}`)).json as unknown as Action;

const readState = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as DemoState;

/** Counts JsonFileStore writes of the demo state (every save is one atomic file write) and how many ran at once. */
function countSaves() {
  const original = JsonFileStore.prototype.save;
  const counter = { saves: 0, inFlight: 0, maxInFlight: 0 };
  vi.spyOn(JsonFileStore.prototype, 'save').mockImplementation(async function (this: JsonFileStore<typeof demoStateSchema>, value) {
    counter.saves++;
    counter.inFlight++;
    counter.maxInFlight = Math.max(counter.maxInFlight, counter.inFlight);
    try {
      await original.call(this, value);
    } finally {
      counter.inFlight--;
    }
  });
  return counter;
}

describe('demo persistence (persistPath)', () => {
  it('keeps threads, messages, cards and decided actions across a restart (new port and token)', async () => {
    const path = join(await tempDir(), 'demo-state.json');
    const first = await start({ persistPath: path });
    const threadId = `t_${Date.now()}`;
    const echoInput = runInput('talkie-test:echo kept across restarts', { threadId });
    expect(text((await stream(first, echoInput)).events)).toBe('kept across restarts');
    const cardRun = await stream(first, runInput('talkie-test:card', { threadId }));
    const [card] = custom(cardRun.events, 'talkie.card');
    const action = await propose(first, 'talkie-test:action', threadId);
    const confirmed = await decide(first, action, 'confirm');
    expect(confirmed.json.action).toMatchObject({ status: 'done' });
    const before = await getThread(first, threadId);
    const threadsBefore = (await api(first, 'GET', '/api/talkie/threads')).json;
    await first.close();

    const saved = await readFile(path, 'utf8');
    expect(saved).not.toContain(first.token);
    expect(JSON.parse(saved)).toMatchObject({ schemaVersion: demoStateVersion, users: [{ user: { id: demoUser.id } }] });

    const second = await start({ persistPath: path });
    expect(second.baseUrl).not.toBe(first.baseUrl);
    expect(second.token).not.toBe(first.token);
    expect((await api(second, 'GET', '/api/talkie/threads', { token: first.token })).status).toBe(401);

    expect((await api(second, 'GET', '/api/talkie/threads')).json).toEqual(threadsBefore);
    const after = await getThread(second, threadId);
    expect(after).toEqual(before);
    expect(after.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'assistant']);
    expect(after.messages[1]?.content).toBe('kept across restarts');
    expect(after.messages[3]?.cards).toEqual([card]);
    expect(after.messages.at(-1)?.cards[0]).toMatchObject({ title: 'Test action done' });
    expect(after.actions).toEqual([expect.objectContaining({ id: action.id, status: 'done' })]);

    expect(await getAction(second, action.id)).toMatchObject({ id: action.id, status: 'done' });
    const again = await decide(second, action, 'confirm');
    expect(again.status).toBe(200);
    expect(again.json).toEqual(confirmed.json);
    const cancel = await decide(second, action, 'cancel');
    expect(cancel.status).toBe(409);
    expect(cancel.json).toMatchObject({ error: { code: 'conflict' } });

    // An answered message stays answered: its retry gets RUN_STARTED + RUN_FINISHED and nothing new.
    const retry = await stream(second, echoInput);
    expectValidRun(retry.events);
    expect(retry.events.map((event) => event.type)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect((await getThread(second, threadId)).messages).toHaveLength(7);

    // A thread started after the restart is listed first.
    const newer = runInput('talkie-test:echo newer');
    await stream(second, newer);
    const listed = (await api(second, 'GET', '/api/talkie/threads')).json.threads as Json[];
    expect(listed.map((thread) => thread.id)).toEqual([newer.threadId, threadId]);
  });

  it('keeps deletions and usage, and saves on close what a cancelled run stored', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await start({ persistPath: path });
    const gone = runInput('talkie-test:echo delete me');
    await stream(first, gone);
    expect((await api(first, 'DELETE', `/api/talkie/threads/${gone.threadId}`)).status).toBe(200);
    const slow = runInput('talkie-test:slow');
    const partial = await stream(first, slow, { until: (events) => ofType(events, 'TEXT_MESSAGE_CONTENT').length >= 2 });
    expect(partial.disconnected).toBe(true);
    const usage = (await api(first, 'GET', '/api/talkie/status')).json.usage as Json[];
    expect(usage[0]).toMatchObject({ used: 2 });
    await first.close(); // cancels the slow run, which stores its partial text

    const second = await start({ persistPath: path });
    expect((await api(second, 'GET', `/api/talkie/threads/${gone.threadId}`)).status).toBe(404);
    expect((await api(second, 'GET', '/api/talkie/status')).json.usage).toEqual(usage);
    const kept = await getThread(second, slow.threadId);
    expect(kept.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(kept.messages[1]?.content).toMatch(/^Part 1 of 20\./);
    // Its run ended with an error, so a retry of the message is answered again.
    const retry = await stream(second, slow);
    expect(text(retry.events)).toMatch(/Part 20 of 20\.$/);
    expect(ofType(retry.events, 'RUN_FINISHED')).toHaveLength(1);
  });

  it('a run in flight when the process stopped is answered again on retry (saved as failed)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    const crashed = join(dir, 'crashed.json');
    const first = await start({ persistPath: path });
    const slow = runInput('talkie-test:slow');
    const running = stream(first, slow);
    // A copy of the file while the run is still going stands in for a process that died right then.
    await waitFor(async () => {
      const state = await readState(path).catch(() => undefined);
      return state?.users[0]?.threads[0]?.messages.length === 1 ? state : undefined;
    });
    await copyFile(path, crashed);
    const state = await readState(crashed);
    expect(state.users[0]?.threads[0]?.answers).toEqual([{ messageId: slow.messages[0]?.id, state: 'failed' }]);
    await running;

    const second = await start({ persistPath: crashed });
    expect((await getThread(second, slow.threadId)).messages).toHaveLength(1);
    const retry = await stream(second, slow);
    expectValidRun(retry.events);
    expect(text(retry.events)).toMatch(/^Part 1 of 20\. .*Part 20 of 20\.$/);
    expect((await getThread(second, slow.threadId)).messages.map((message) => message.role)).toEqual(['user', 'assistant']);
  });

  it('an undo window that closed while the demo was stopped: the action is done, with its result card', async () => {
    const path = join(await tempDir(), 'state.json');
    const first = await start({ persistPath: path });
    const action = await propose(first, 'send the offer');
    const confirmed = await decide(first, action, 'confirm');
    expect(confirmed.json.action).toMatchObject({ status: 'running', undoUntil: expect.any(String) });
    await first.close();
    expect((await readState(path)).users[0]?.actions[0]?.action).toMatchObject({ id: action.id, status: 'running' });

    const undoUntil = Date.parse((confirmed.json.action as Action).undoUntil ?? '');
    await sleep(Math.max(0, undoUntil - Date.now()) + 20);
    const second = await start({ persistPath: path });
    // Completed at start, not only when read: the change reaches the file before any request.
    await waitFor(async () => ((await readState(path)).users[0]?.actions[0]?.action.status === 'done' ? true : undefined));
    expect(await getAction(second, action.id)).toMatchObject({ status: 'done' });
    expect(await getAction(second, action.id)).not.toHaveProperty('undoUntil');
    const thread = await getThread(second, action.threadId);
    expect(thread.messages.at(-1)).toMatchObject({ role: 'assistant', cards: [expect.objectContaining({ title: 'Offer N-2026-014 sent' })] });
    expect(thread.messages.filter((message) => message.cards.some((card) => card.title === 'Offer N-2026-014 sent'))).toHaveLength(1);
    // The confirm in force is repeated with its events; an undo is too late now.
    const again = await decide(second, action, 'confirm');
    expect(again.status).toBe(200);
    expect(again.json.events).toEqual(confirmed.json.events);
    expect((await decide(second, action, 'cancel')).status).toBe(409);
  });

  it('an undo window still open at restart gets its timer back: undo works, or it completes by itself', { timeout: 15_000 }, async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    const first = await start({ persistPath: path, timeScale: 0.2 }); // undo window 2 s
    const undone = await propose(first, 'send the offer');
    const completes = await propose(first, 'send the offer');
    expect((await decide(first, undone, 'confirm')).json.action).toMatchObject({ status: 'running' });
    const running = (await decide(first, completes, 'confirm')).json.action as Action;
    await first.close();

    const second = await start({ persistPath: path, timeScale: 0.2 });
    expect(await getAction(second, completes.id)).toMatchObject({ status: 'running', undoUntil: running.undoUntil });
    const undo = await decide(second, undone, 'cancel');
    expect(undo.status).toBe(200);
    expect(undo.json.action).toMatchObject({ status: 'cancelled' });
    // No reads meanwhile: the re-armed timer completes the other one and the change is saved.
    const saved = await waitFor(async () => {
      const state = await readState(path);
      const record = state.users[0]?.actions.find((item) => item.action.id === completes.id);
      return record?.action.status === 'done' ? state : undefined;
    }, 5000);
    expect(saved.users[0]?.actions.find((item) => item.action.id === undone.id)?.action.status).toBe('cancelled');
    const thread = (saved.users[0]?.threads ?? []).find((item) => item.id === completes.threadId);
    expect(thread?.messages.at(-1)?.cards[0]).toMatchObject({ title: 'Offer N-2026-014 sent' });
  });

  it("keeps each verifyToken user's threads apart across a restart", async () => {
    const path = join(await tempDir(), 'state.json');
    const verifyToken = async (token: string) => (token === 'alice-token' ? { id: 'alice', name: 'Alice' } : undefined);
    const first = await start({ persistPath: path, verifyToken });
    const alice = runInput('talkie-test:echo from alice');
    await stream(first, alice, { token: 'alice-token' });
    await first.close();

    const second = await start({ persistPath: path, verifyToken });
    expect((await api(second, 'GET', '/api/talkie/threads')).json).toEqual({ threads: [] });
    const listed = (await api(second, 'GET', '/api/talkie/threads', { token: 'alice-token' })).json.threads as Json[];
    expect(listed.map((thread) => thread.id)).toEqual([alice.threadId]);
  });

  it('a corrupt file is moved aside and the demo starts clean', async () => {
    const dir = await tempDir();
    const path = join(dir, 'demo-state.json');
    await writeFile(path, '{"schemaVersion": 1, "users": [', 'utf8');
    const log = memoryLogger();
    const server = await start({ persistPath: path, log });
    expect((await api(server, 'GET', '/api/talkie/threads')).json).toEqual({ threads: [] });
    const files = await readdir(dir);
    expect(files.filter((name) => name.startsWith('demo-state.json.corrupt-'))).toHaveLength(1);
    expect(files).not.toContain('demo-state.json');
    expect(log.lines.some((line) => line.startsWith('WARN [demo]') && line.includes('could not be read'))).toBe(true);

    await stream(server, runInput('talkie-test:echo fresh'));
    await server.close();
    expect(demoStateSchema.safeParse(await readState(path)).success).toBe(true);
  });

  it('a file of the wrong shape is moved aside too', async () => {
    const dir = await tempDir();
    const path = join(dir, 'demo-state.json');
    await writeFile(path, JSON.stringify({ schemaVersion: 1, savedAt: new Date().toISOString(), users: 'everyone' }), 'utf8');
    const server = await start({ persistPath: path });
    expect((await api(server, 'GET', '/api/talkie/threads')).json).toEqual({ threads: [] });
    expect((await readdir(dir)).some((name) => name.startsWith('demo-state.json.corrupt-'))).toBe(true);
  });

  it('a file from a newer AgentDesk is left untouched, reported, and the demo runs in memory', async () => {
    const dir = await tempDir();
    const path = join(dir, 'demo-state.json');
    const newer = JSON.stringify({ schemaVersion: 99, savedAt: new Date().toISOString(), people: [] });
    await writeFile(path, newer, 'utf8');
    const notices: Notice[] = [];
    const saves = countSaves();
    const server = await start({ persistPath: path, notices });
    expect((await api(server, 'GET', '/api/talkie/threads')).json).toEqual({ threads: [] });
    await stream(server, runInput('talkie-test:echo not saved'));
    await server.close();
    expect(saves.saves).toBe(0);
    expect(notices.map((notice) => [notice.code, notice.message])).toEqual([
      [
        'file_newer_defaults',
        'demo-state.json was written by a newer AgentDesk (version 99); this version cannot read it and uses the defaults, and will not change it.',
      ],
    ]);
    expect(await readdir(dir)).toEqual(['demo-state.json']);
    expect(await readFile(path, 'utf8')).toBe(newer);
  });

  it.skipIf(chattrUnavailable() !== undefined)(
    'a save the folder refuses (chattr +i) keeps the old file and tells the user, and the demo goes on in memory',
    async () => {
      const dir = await tempDir();
      const path = join(dir, 'demo-state.json');
      const notices: Notice[] = [];
      const server = await start({ persistPath: path, notices });
      await stream(server, runInput('talkie-test:echo saved'));
      const before = await waitFor(async () => {
        const text = await readFile(path, 'utf8').catch(() => undefined);
        return text?.includes('"answered"') ? text : undefined;
      });
      faulty.immutable(dir);
      const kept = runInput('talkie-test:echo only in memory');
      await stream(server, kept);
      expect((await getThread(server, kept.threadId)).messages).toHaveLength(2);
      await server.close();
      expect(notices.map((notice) => notice.message)).toContain(
        `The demo agent's conversations are kept until AgentDesk closes, but not on disk: demo-state.json could not be saved in ${dir}: the operation is not permitted (EPERM). The saved copy is unchanged.`,
      );
      expect(await readFile(path, 'utf8')).toBe(before);
      expect(await readdir(dir)).toEqual(['demo-state.json']);
    },
  );

  it('a file that cannot be read is left alone and the demo runs in memory', async () => {
    const dir = await tempDir();
    const path = join(dir, 'state.json');
    await mkdir(path); // reading a directory fails with EISDIR, which is not "corrupt"
    const log = memoryLogger();
    const saves = countSaves();
    const server = await start({ persistPath: path, log });
    await stream(server, runInput('talkie-test:echo memory only'));
    await server.close();
    expect(saves.saves).toBe(0);
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(log.lines.some((line) => line.includes('[demo]') && line.includes('in memory only'))).toBe(true);
  });

  it('coalesces writes: a streamed slow run and a burst of runs write a few times, never two at once', async () => {
    const path = join(await tempDir(), 'state.json');
    const changes = vi.spyOn(UserSpace.prototype, 'changed');
    const saves = countSaves();
    const server = await start({ persistPath: path });

    const slow = await stream(server, runInput('talkie-test:slow'));
    const deltas = ofType(slow.events, 'TEXT_MESSAGE_CONTENT').length;
    expect(deltas).toBe(20);
    await sleep(80);
    const slowSaves = saves.saves;
    expect(slowSaves).toBeGreaterThanOrEqual(1);
    expect(slowSaves).toBeLessThanOrEqual(3); // one for the start of the run, one for its end: deltas are not stored changes

    // A burst: 20 runs at once, several changes each.
    changes.mockClear();
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => stream(server, runInput(`talkie-test:echo burst ${i}`))));
    for (const run of burst) expect(ofType(run.events, 'RUN_FINISHED')).toHaveLength(1);
    await server.close();
    const burstSaves = saves.saves - slowSaves;
    expect(changes.mock.calls.length).toBeGreaterThanOrEqual(80);
    expect(burstSaves).toBeGreaterThanOrEqual(1);
    expect(burstSaves).toBeLessThanOrEqual(10);
    expect(saves.maxInFlight).toBe(1);

    // The last write has everything.
    const state = await readState(path);
    expect(state.users[0]?.threads).toHaveLength(21);
    expect(state.users[0]?.usage.runs).toBe(21);
    expect(state.users[0]?.threads.every((thread) => thread.messages.length === 2 && thread.answers[0]?.state === 'answered')).toBe(true);
  });

  it('without persistPath nothing is written', async () => {
    const saves = countSaves();
    const server = await start();
    await stream(server, runInput('talkie-test:echo in memory'));
    await server.close();
    expect(saves.saves).toBe(0);
  });
});

describe('DemoStatePersister', () => {
  const log = { error: vi.fn() };
  const state = (): DemoState => ({ schemaVersion: demoStateVersion, savedAt: new Date().toISOString(), users: [] });

  it('one write for many changes; a change during a write gets one more write after it; close() flushes', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const saves: number[] = [];
    let snapshots = 0;
    const store = {
      save: async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        saves.push(Date.now());
        await sleep(30);
        inFlight--;
      },
    };
    const persister = new DemoStatePersister(store, () => (snapshots++, state()), log, 20);
    for (let i = 0; i < 500; i++) persister.schedule();
    expect(saves).toHaveLength(0);
    await sleep(35); // the write started and is still going
    expect(saves).toHaveLength(1);
    for (let i = 0; i < 500; i++) persister.schedule();
    await sleep(100);
    expect(saves).toHaveLength(2);
    expect(maxInFlight).toBe(1);

    persister.schedule();
    await persister.close(); // no waiting for the timer
    expect(saves).toHaveLength(3);
    expect(snapshots).toBe(3);
    persister.schedule();
    await sleep(40);
    expect(saves).toHaveLength(3);
  });

  it('a failed write is logged, not thrown, and the next change is written again', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const store = {
      save: async () => {
        calls++;
        if (calls === 1) throw new Error('disk full');
      },
    };
    const persister = new DemoStatePersister(store, state, { error: (_area, _message, error) => void errors.push(error) }, 5);
    persister.schedule();
    await waitFor(async () => (errors.length === 1 ? true : undefined));
    persister.schedule();
    await persister.close();
    expect(calls).toBe(2);
    expect(errors).toEqual([expect.objectContaining({ message: 'disk full' })]);
  });
});

describe('snapshotDemoState', () => {
  it('keeps the newest threads and messages within the limits, and the result is a valid file', () => {
    const space = new UserSpace(demoUser);
    for (let i = 0; i < demoStateLimits.threadsPerUser + 7; i++) {
      const thread = space.createThread(`t${i}`, `thread ${i}`);
      space.addMessage(thread, { id: `m${i}`, role: 'user', content: `hello ${i}`, createdAt: new Date().toISOString(), cards: [] });
      thread.answers.set(`m${i}`, { state: 'answered' });
    }
    const big = space.threads.get(`t${demoStateLimits.threadsPerUser + 6}`);
    if (!big) throw new Error('no thread');
    for (let i = 0; i < demoStateLimits.messagesPerThread + 3; i++) {
      big.messages.push({ id: `x${i}`, role: 'assistant', content: `${i}`, createdAt: new Date().toISOString(), cards: [], channel: 'chat' });
    }
    const snapshot = snapshotDemoState([space]);
    expect(demoStateSchema.safeParse(snapshot).success).toBe(true);
    const threads = snapshot.users[0]?.threads ?? [];
    expect(threads).toHaveLength(demoStateLimits.threadsPerUser);
    expect(threads[0]?.id).toBe(`t${demoStateLimits.threadsPerUser + 6}`);
    expect(threads.at(-1)?.id).toBe('t7');
    expect(threads[0]?.messages).toHaveLength(demoStateLimits.messagesPerThread);
    expect(threads[0]?.messages.at(-1)?.id).toBe(`x${demoStateLimits.messagesPerThread + 2}`);
    expect(threads[0]?.answers).toEqual([]); // its user message was trimmed away
    expect(threads[1]?.answers).toEqual([{ messageId: `m${demoStateLimits.threadsPerUser + 5}`, state: 'answered' }]);

    const [restored] = restoreDemoState(snapshot);
    expect(restored?.listThreads().map((thread) => thread.id)).toEqual(space.listThreads().map((thread) => thread.id));
  });

  it('leaves out a user that does not fit the schema, and saves the others', () => {
    const odd = new UserSpace({ id: 'u'.repeat(600), name: 'Odd' });
    odd.createThread('t1', 'hi');
    const normal = new UserSpace(demoUser);
    normal.createThread('t2', 'hi');
    const skipped: string[] = [];
    const snapshot = snapshotDemoState([odd, normal], (userId) => skipped.push(userId));
    expect(skipped).toEqual(['u'.repeat(600)]);
    expect(snapshot.users.map((user) => user.user.id)).toEqual([demoUser.id]);
    expect(demoStateSchema.safeParse(snapshot).success).toBe(true);
  });

  it('saves a running answer as failed and leaves out empty spaces', () => {
    const space = new UserSpace(demoUser);
    const thread = space.createThread('t1', 'hi');
    space.addMessage(thread, { id: 'm1', role: 'user', content: 'hi', createdAt: new Date().toISOString(), cards: [] });
    thread.answers.set('m1', { state: 'running', runId: 'r1' });
    const snapshot = snapshotDemoState([space, new UserSpace({ id: 'nobody', name: 'Nobody' })]);
    expect(snapshot.users).toHaveLength(1);
    expect(snapshot.users[0]?.threads[0]?.answers).toEqual([{ messageId: 'm1', state: 'failed' }]);
  });
});
