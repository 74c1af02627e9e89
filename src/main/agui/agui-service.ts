import type { Message, ResumeEntry } from '@ag-ui/core';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { buildResume, buildRunInput, parseForwardedProps, type InterruptAnswer } from '../../shared/agui/interrupts';
import type { AguiServerSettings, AguiServerView, AguiThreadList } from '../../shared/agui/ipc-schemas';
import type { JsonObject } from '../../shared/agui/json-values';
import { stampNewItems } from '../../shared/agui/item-times';
import {
  addUserMessage,
  applyAguiEvent,
  beginRun,
  boundThread,
  createThread,
  historyMessages,
  markRequestFailed,
  markStreamDropped,
  openInterrupts,
  type AguiThreadView,
} from '../../shared/agui/run-model';
import { aguiThreadFileFormat, aguiThreadViewSchema, restoreThread } from '../../shared/agui/thread-persistence';
import { openWindow } from '../../shared/agui/thread-window';
import { builtInAguiDemoId } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';
import { threadTitleFromMessage } from '../../shared/talkie/thread-title';
import { searchThreads, type ThreadSearchResult } from '../../shared/threads/thread-search';
import type { SavedFileFormat } from '../../shared/storage/saved-file-format';
import type { Problem } from '../../shared/talkie/problems';
import type { TokenStore } from '../auth/token-store';
import type { NetPolicy } from '../net/guarded-fetch';
import type { Logger } from '../platform/logger';
import type { AgentRegistry } from '../store/agent-registry';
import { JsonFileStore } from '../store/json-file-store';
import type { NoticeSink } from '../store/notices';
import type { SettingsService } from '../store/settings-service';
import { runAgui, type AguiRunEnd } from './agui-client';

/**
 * Plain AG-UI servers for the UI (issue #7): per agent, main holds the thread (saved atomically, so open interrupts survive a
 * restart), its forwardedProps and its bearer token, which never leaves main. Main folds each run's events and tells the
 * followers once per tick; one run per agent at a time, and `send` is refused while interrupts are open.
 * Decision: docs/architecture.md#plain-ag-ui-in-main
 */
export interface AguiServiceDeps {
  userDataDir: string;
  agents: AgentRegistry;
  settings: SettingsService;
  tokens: TokenStore;
  log: Logger;
  /** The built-in demo's AG-UI endpoint (starts the demo on first use). */
  demoUrl(): Promise<string>;
  /** The clock that decides interrupt expiry (epoch ms). Default Date.now. */
  now?: () => number;
  /** How long a silent stream is kept open (ms). */
  idleMs?: number;
}

export const aguiServiceLimits = {
  /** Events folded before the thread's followers are told. */
  eventsPerBatch: 200,
  /** Characters of event data folded before the followers are told (a batch is closed once it holds this much). */
  batchChars: 1024 * 1024,
  servers: 500,
  /** Earlier threads kept per agent (the oldest beyond it are deleted when another is kept). */
  earlierThreads: 50,
  /** Characters of an earlier thread's text held in memory for search. */
  searchCharsPerThread: 200_000,
} as const;

const serversFileSchema = z.strictObject({
  schemaVersion: z.literal(1),
  servers: z
    .record(
      z.string().min(1).max(64),
      z.strictObject({
        forwardedProps: z
          .string()
          .max(65_536)
          .refine((text) => parseForwardedProps(text).ok, { message: 'forwardedProps is not a JSON object within the limits' }),
      }),
    )
    .refine((servers) => Object.keys(servers).length <= aguiServiceLimits.servers, { message: `at most ${aguiServiceLimits.servers} servers` }),
});
/** `agui-servers.json`: version 1 since it exists; a schema change adds a version and its migration here. */
export const aguiServersFileFormat: SavedFileFormat = { versionField: 'schemaVersion', current: 1, migrations: {} };

interface Target {
  endpoint: string;
  policy: NetPolicy;
  tokenAccount: string;
}

interface AgentState {
  thread: AguiThreadView;
  store: JsonFileStore<typeof aguiThreadViewSchema>;
  /** What the last run sent (messages and resume), for Retry; not kept across a restart. */
  lastRun?: { messages: Message[]; resume?: ResumeEntry[] };
}

/** An earlier thread of an agent (its file in `agui-threads/<agentId>/`), as the list and the search need it. */
interface EarlierThread {
  threadId: string;
  title: string;
  /** The newest item's time (ms), when known. */
  updatedAt?: number;
  texts: string[];
  path: string;
}

interface ActiveRun {
  abort: AbortController;
  done: Promise<void>;
}

const safeAgentId = /^[A-Za-z0-9_-]{1,64}$/;
const terminalStates = new Set<AguiThreadView['runState']>(['finished', 'awaitingInput', 'cancelled', 'error']);

export class AguiService {
  private readonly states = new Map<string, Promise<AgentState>>();
  private readonly runs = new Map<string, ActiveRun>();
  /** Each agent's earlier threads by thread id, read from its folder at first use. */
  private readonly earlierThreads = new Map<string, Promise<Map<string, EarlierThread>>>();
  private readonly now: () => number;
  /** Who follows an agent's thread in main (the conversation service), called whenever it changed. */
  private readonly watchers = new Map<string, Set<(thread: AguiThreadView) => void>>();

  private constructor(
    private readonly deps: AguiServiceDeps,
    private readonly servers: JsonFileStore<typeof serversFileSchema>,
    private forwarded: z.output<typeof serversFileSchema>['servers'],
    private readonly notices: NoticeSink,
  ) {
    this.now = deps.now ?? Date.now;
  }

  /** `notices` gets what the user must know: files moved aside or from a newer AgentDesk, and thread saves that failed (they happen after the call that caused them answered). */
  static async open(deps: AguiServiceDeps, notices: NoticeSink): Promise<AguiService> {
    const store = new JsonFileStore(
      join(deps.userDataDir, 'agui-servers.json'),
      serversFileSchema,
      () => ({ schemaVersion: 1 as const, servers: {} }),
      aguiServersFileFormat,
    );
    const { value, notice } = await store.load();
    if (notice) notices.push(notice);
    return new AguiService(deps, store, value.servers, notices);
  }

  /**
   * Follows the agent's thread in main: `changed` gets the thread after each change (a tick of a run,
   * a run's end, a new, opened or emptied thread, a message sent). Returns the unsubscribe.
   */
  watch(agentId: string, changed: (thread: AguiThreadView) => void): () => void {
    let set = this.watchers.get(agentId);
    if (set === undefined) this.watchers.set(agentId, (set = new Set()));
    set.add(changed);
    return () => set.delete(changed);
  }

  private notify(agentId: string, thread: AguiThreadView): void {
    for (const changed of this.watchers.get(agentId) ?? []) {
      try {
        changed(thread);
      } catch (error) {
        this.deps.log.error('agui', 'a follower of a thread failed', error);
      }
    }
  }

  async open(agentId: string): Promise<AguiServerView> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    return this.view(agentId, target, state);
  }

  /** The open thread as main holds it (within the bounds), for the agent's conversation: the page only ever gets windows of it. */
  async held(agentId: string): Promise<AguiThreadView> {
    await this.target(agentId);
    return (await this.state(agentId)).thread;
  }

  async send(agentId: string, request: { messageId: string; text: string }): Promise<{ runId: string }> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    this.ensureIdle(agentId);
    if (openInterrupts(state.thread).length > 0) {
      throw new ServiceError('rejected', 'The agent is waiting for your answer to its question; answer it (or cancel it) first.');
    }
    const thread = addUserMessage(state.thread, { id: request.messageId, text: request.text });
    return this.startRun(agentId, target, state, thread, { messages: historyMessages(thread) });
  }

  async resume(
    agentId: string,
    answers: Readonly<Record<string, { status: 'resolved'; payload?: unknown } | { status: 'cancelled' }>>,
  ): Promise<{ runId: string }> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    this.ensureIdle(agentId);
    const open = openInterrupts(state.thread);
    if (open.length === 0) throw new ServiceError('invalid_request', 'No question of the agent is waiting for an answer.', '/answers');
    const built = buildResume(open, answers as Readonly<Record<string, InterruptAnswer>>, this.now());
    if (!built.ok) throw problemError(built.problems, '/answers');
    if (built.expired.length > 0) this.deps.log.info('agui', `${built.expired.length} expired interrupt(s) answered as cancelled`);
    return this.startRun(agentId, target, state, state.thread, { messages: historyMessages(state.thread), resume: built.resume });
  }

  /** After a dropped stream, a failed request or a run error: the same turn again as a new run. */
  async retry(agentId: string): Promise<{ runId: string }> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    this.ensureIdle(agentId);
    const { thread } = state;
    if (thread.runState !== 'dropped' && thread.runState !== 'error') {
      throw new ServiceError('rejected', 'There is nothing to retry: the last run did not fail or break off.');
    }
    const open = openInterrupts(thread);
    const last = state.lastRun;
    if (last?.resume !== undefined) {
      // The resume run failed before it started: its interrupts are still open, answer them the same way.
      const still = last.resume.every((entry) => open.some((interrupt) => interrupt.id === entry.interruptId));
      if (still && open.length === last.resume.length) return this.startRun(agentId, target, state, thread, { messages: last.messages, resume: last.resume });
    }
    if (open.length > 0) throw new ServiceError('rejected', 'Answer the agent’s open questions instead: the answers start the next run.');
    if (last !== undefined && last.resume === undefined) return this.startRun(agentId, target, state, thread, { messages: last.messages });
    // After a restart: the history up to the last message the user sent.
    const history = historyMessages(thread);
    const lastUser = history.findLastIndex((message) => message.role === 'user');
    if (lastUser === -1) throw new ServiceError('rejected', 'There is nothing to retry: this thread has no message of yours.');
    return this.startRun(agentId, target, state, thread, { messages: history.slice(0, lastUser + 1) });
  }

  async cancel(agentId: string): Promise<{ cancelled: boolean }> {
    const run = this.runs.get(agentId);
    if (!run) return { cancelled: false };
    run.abort.abort();
    await run.done;
    return { cancelled: true };
  }

  /** A fresh thread; the one open is kept among the earlier threads (when it has anything in it). */
  async newThread(agentId: string): Promise<AguiServerView> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    this.ensureIdle(agentId);
    await this.keepEarlier(agentId, state.thread);
    state.thread = createThread(`thread_${randomUUID()}`);
    delete state.lastRun;
    await this.save(agentId, state);
    this.notify(agentId, state.thread);
    return this.view(agentId, target, state);
  }

  /**
   * The agent's threads: the open one first (once it has anything in it), then the earlier ones kept
   * in `agui-threads/<agentId>/` (at most 50), newest first, each titled by its first message of the user's.
   */
  async threads(agentId: string): Promise<AguiThreadList> {
    await this.target(agentId);
    const { thread } = await this.state(agentId);
    const earlier = [...(await this.earlier(agentId)).values()].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    const open = thread.items.length > 0 ? [summaryOf(thread)] : [];
    return {
      currentThreadId: thread.threadId,
      threads: [...open, ...earlier].map(({ threadId, title, updatedAt }) => ({ threadId, title, ...(updatedAt === undefined ? {} : { updatedAt }) })),
    };
  }

  /** Opens an earlier thread: it becomes the agent's thread (runs continue it) and the open one is kept among the earlier. */
  async openThread(agentId: string, threadId: string): Promise<AguiServerView> {
    const target = await this.target(agentId);
    const state = await this.state(agentId);
    if (state.thread.threadId === threadId) return this.view(agentId, target, state);
    this.ensureIdle(agentId);
    const earlier = await this.earlier(agentId);
    const chosen = earlier.get(threadId);
    if (!chosen) throw new ServiceError('not_found', 'That thread is no longer there.', '/threadId');
    const store = new JsonFileStore(chosen.path, aguiThreadViewSchema, () => createThread(threadId), aguiThreadFileFormat, {
      label: `agui-threads/${agentId}/${basename(chosen.path)}`,
    });
    const { value, notice } = await store.load();
    if (notice) this.notices.push(notice);
    const restored = restoreThread(value);
    if (!restored.ok || restored.view.threadId !== threadId) {
      earlier.delete(threadId);
      throw new ServiceError('not_found', 'That thread could not be read; it is no longer listed.', '/threadId');
    }
    await this.keepEarlier(agentId, state.thread);
    state.thread = restored.view;
    delete state.lastRun;
    await this.save(agentId, state);
    earlier.delete(threadId);
    await rm(chosen.path, { force: true });
    this.notify(agentId, state.thread);
    return this.view(agentId, target, state);
  }

  /** Deletes an earlier thread, or empties the open one (a fresh thread takes its place). */
  async deleteThread(agentId: string, threadId: string): Promise<AguiThreadList> {
    await this.target(agentId);
    const state = await this.state(agentId);
    if (state.thread.threadId === threadId) {
      this.ensureIdle(agentId);
      state.thread = createThread(`thread_${randomUUID()}`);
      delete state.lastRun;
      await this.save(agentId, state);
      this.notify(agentId, state.thread);
    } else {
      const earlier = await this.earlier(agentId);
      const gone = earlier.get(threadId);
      if (!gone) throw new ServiceError('not_found', 'That thread is no longer there.', '/threadId');
      await rm(gone.path, { force: true });
      earlier.delete(threadId);
    }
    return this.threads(agentId);
  }

  /**
   * Searches the agent's threads (the open one and the earlier ones): their messages' text, the
   * first one of the user's as the title. Read from main's copies; nothing is sent to the server.
   */
  async searchThread(agentId: string, query: string): Promise<{ results: ThreadSearchResult[] }> {
    const { thread } = await this.state(agentId);
    const earlier = [...(await this.earlier(agentId)).values()].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0));
    return { results: searchThreads([summaryOf(thread), ...earlier], query) };
  }

  async setForwardedProps(agentId: string, json: string): Promise<AguiServerSettings> {
    const target = await this.target(agentId);
    if (agentId !== builtInAguiDemoId && this.deps.agents.policyForwardedProps(agentId) !== undefined) {
      throw new ServiceError('not_allowed', "This agent's forwardedProps are set by the administrator's device policy.");
    }
    const parsed = parseForwardedProps(json);
    if (!parsed.ok) throw problemError(parsed.problems, '/json');
    const servers = { ...this.forwarded };
    if (json.trim() === '' || Object.keys(parsed.value).length === 0) delete servers[agentId];
    else servers[agentId] = { forwardedProps: json };
    await this.servers.save({ schemaVersion: 1, servers });
    this.forwarded = servers;
    return this.settings(agentId, target);
  }

  async useToken(agentId: string, token: string): Promise<AguiServerSettings> {
    const target = await this.target(agentId);
    const trimmed = token.trim();
    if (trimmed === '') await this.deps.tokens.clear(target.tokenAccount);
    else {
      if (!/^[\x21-\x7e]+$/.test(trimmed)) throw new ServiceError('invalid_request', 'A bearer token is printable ASCII without spaces.', '/token');
      await this.deps.tokens.save(target.tokenAccount, { accessToken: trimmed, issuer: new URL(target.endpoint).origin, clientId: 'pasted' });
    }
    return this.settings(agentId, target);
  }

  /** The agent was removed: its thread file and forwardedProps go too (its token stays keyed by endpoint). */
  async forget(agentId: string): Promise<void> {
    const run = this.runs.get(agentId);
    if (run) {
      run.abort.abort();
      await run.done;
    }
    this.states.delete(agentId);
    this.earlierThreads.delete(agentId);
    if (safeAgentId.test(agentId)) {
      await rm(this.threadPath(agentId), { force: true });
      await rm(this.earlierFolder(agentId), { recursive: true, force: true });
    }
    if (this.forwarded[agentId] !== undefined) {
      const servers = { ...this.forwarded };
      delete servers[agentId];
      await this.servers.save({ schemaVersion: 1, servers });
      this.forwarded = servers;
    }
  }

  /**
   * The kiosk's reset: stops every run, then forgets every thread, in memory and on disk (the whole
   * agui-threads folder: current and earlier threads of every agent). Returns the runs stopped and
   * the files deleted.
   */
  async resetAll(): Promise<{ runs: number; files: number }> {
    const open = [...this.runs.values()];
    for (const run of open) run.abort.abort();
    await Promise.all(open.map((run) => run.done));
    this.states.clear();
    this.earlierThreads.clear();
    const folder = join(this.deps.userDataDir, 'agui-threads');
    const files = await countFiles(folder);
    await rm(folder, { recursive: true, force: true });
    return { runs: open.length, files };
  }

  /** Stops every run (each is saved as dropped) and waits for the saves. */
  async dispose(): Promise<void> {
    const open = [...this.runs.values()];
    for (const run of open) run.abort.abort();
    await Promise.all(open.map((run) => run.done));
  }

  /* ------------------------------------------------------------------------------------------- */

  private ensureIdle(agentId: string): void {
    if (this.runs.has(agentId)) throw new ServiceError('rejected', 'A run is still going on; wait for it to end or stop it.');
  }

  private async startRun(
    agentId: string,
    target: Target,
    state: AgentState,
    base: AguiThreadView,
    sent: { messages: Message[]; resume?: ResumeEntry[] },
  ): Promise<{ runId: string }> {
    this.ensureIdle(agentId);
    const runId = `run_${randomUUID()}`;
    const forwardedProps = this.forwardedProps(agentId);
    const built = buildRunInput({
      threadId: base.threadId,
      runId,
      messages: sent.messages,
      ...(base.state === undefined ? {} : { state: base.state }),
      forwardedProps,
      ...(sent.resume === undefined ? {} : { resume: sent.resume }),
    });
    if (!built.ok) throw problemError(built.problems, '');
    // Reserved before any await: a second send in the meantime is refused.
    const abort = new AbortController();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const run: ActiveRun = { abort, done };
    this.runs.set(agentId, run);
    try {
      state.thread = stampNewItems(state.thread, beginRun(base, { runId, ...(sent.resume === undefined ? {} : { resume: sent.resume }) }), this.now());
      state.lastRun = { messages: sent.messages, ...(sent.resume === undefined ? {} : { resume: sent.resume }) };
      this.notify(agentId, state.thread);
      await this.save(agentId, state);
      const token = (await this.deps.tokens.load(target.tokenAccount))?.accessToken;
      // The stream starts after this answer has gone out, so the renderer knows the runId first.
      setImmediate(() => {
        this.stream(agentId, target, state, run, built.input, token)
          .catch((error: unknown) => this.deps.log.error('agui', 'a run ended unexpectedly', error))
          .finally(() => {
            if (this.runs.get(agentId) === run) this.runs.delete(agentId);
            finish();
          });
      });
    } catch (error) {
      this.runs.delete(agentId);
      finish();
      throw error;
    }
    return { runId };
  }

  private async stream(
    agentId: string,
    target: Target,
    state: AgentState,
    run: ActiveRun,
    input: Parameters<typeof runAgui>[0]['input'],
    token: string | undefined,
  ): Promise<void> {
    let pending = 0;
    let pendingChars = 0;
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      if (pending === 0) return;
      pending = 0;
      pendingChars = 0;
      state.thread = boundThread(state.thread);
      // A run's end reaches its followers once it is saved and another run may start (below): a
      // message the conversation queued meanwhile is sent then, not refused as too early.
      if (!terminalStates.has(state.thread.runState)) this.notify(agentId, state.thread);
    };
    let unknownLines = 0;
    let end: AguiRunEnd;
    if (run.abort.signal.aborted) end = { kind: 'cancelled' };
    else {
      end = await runAgui(
        {
          endpoint: target.endpoint,
          input,
          ...(token === undefined ? {} : { token }),
          policy: target.policy,
          signal: run.abort.signal,
          ...(this.deps.idleMs === undefined ? {} : { idleMs: this.deps.idleMs }),
        },
        {
          onEvent: (event, dataChars) => {
            if (pending >= aguiServiceLimits.eventsPerBatch || pendingChars + dataChars > aguiServiceLimits.batchChars) flush();
            // A MESSAGES_SNAPSHOT brings history: its messages' times are not known here.
            state.thread = stampNewItems(state.thread, applyAguiEvent(state.thread, event), isSnapshot(event) ? undefined : this.now());
            pending += 1;
            pendingChars += dataChars;
            if (!scheduled) {
              scheduled = true;
              setImmediate(flush);
            }
            return terminalStates.has(state.thread.runState) ? 'stop' : undefined;
          },
          onUnknownLine: () => {
            unknownLines += 1;
          },
        },
      );
    }
    flush();
    if (unknownLines > 0) this.deps.log.warn('agui', `the AG-UI server sent ${unknownLines} line(s) that are not SSE; they were ignored`);
    const live = state.thread.runState === 'starting' || state.thread.runState === 'running';
    const streamed = state.thread;
    switch (end.kind) {
      case 'stopped':
        break;
      case 'dropped':
        if (live) state.thread = markStreamDropped(state.thread, end.message);
        break;
      case 'too_large':
        if (live) state.thread = { ...markStreamDropped(state.thread, end.message), error: { code: 'event_too_large', message: end.message } };
        break;
      case 'cancelled':
        if (live) state.thread = markStreamDropped(state.thread, 'You stopped this run.');
        break;
      case 'failed':
        state.thread = markRequestFailed(state.thread, { code: end.code, message: end.message });
        this.deps.log.info('agui', `a run on ${new URL(target.endpoint).host} was refused (${end.code})`);
        break;
    }
    state.thread = stampNewItems(streamed, state.thread, this.now());
    await this.save(agentId, state);
    if (this.runs.get(agentId) === run) this.runs.delete(agentId);
    this.notify(agentId, state.thread);
  }

  /** The forwardedProps in force, as text: the device policy's for this agent when it sets them, else the user's saved ones. */
  private forwardedText(agentId: string): string | undefined {
    return (agentId === builtInAguiDemoId ? undefined : this.deps.agents.policyForwardedProps(agentId)) ?? this.forwarded[agentId]?.forwardedProps;
  }

  private forwardedProps(agentId: string): JsonObject {
    const text = this.forwardedText(agentId);
    if (text === undefined) return {};
    const parsed = parseForwardedProps(text);
    return parsed.ok ? parsed.value : {};
  }

  /** The server and the thread's newest window (its steps and state for the details). */
  private async view(agentId: string, target: Target, state: AgentState): Promise<AguiServerView> {
    const { window } = openWindow(state.thread);
    return { ...(await this.settings(agentId, target)), thread: window };
  }

  private async settings(agentId: string, target: Target): Promise<AguiServerSettings> {
    return {
      endpoint: target.endpoint,
      hasToken: (await this.deps.tokens.load(target.tokenAccount)) !== undefined,
      forwardedProps: this.forwardedText(agentId) ?? '{}',
    };
  }

  private earlierFolder(agentId: string): string {
    return join(this.deps.userDataDir, 'agui-threads', agentId);
  }

  private earlier(agentId: string): Promise<Map<string, EarlierThread>> {
    let earlier = this.earlierThreads.get(agentId);
    if (!earlier) {
      earlier = this.readEarlier(agentId);
      this.earlierThreads.set(agentId, earlier);
      earlier.catch(() => this.earlierThreads.delete(agentId));
    }
    return earlier;
  }

  /** The agent's earlier threads from its folder: the newest 50 files, each read like the open thread's file. */
  private async readEarlier(agentId: string): Promise<Map<string, EarlierThread>> {
    const found = new Map<string, EarlierThread>();
    if (!safeAgentId.test(agentId)) return found;
    const folder = this.earlierFolder(agentId);
    let names: string[];
    try {
      names = (await readdir(folder)).filter((name) => /^[0-9a-f]{32}\.json$/.test(name));
    } catch {
      return found;
    }
    const dated = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(folder, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
    dated.sort((a, b) => b.time - a.time);
    for (const { name } of dated.slice(0, aguiServiceLimits.earlierThreads)) {
      const path = join(folder, name);
      const store = new JsonFileStore(path, aguiThreadViewSchema, () => createThread('none'), aguiThreadFileFormat, {
        label: `agui-threads/${agentId}/${name}`,
      });
      const { value, notice, fromFile } = await store.load();
      if (notice) this.notices.push(notice);
      const restored = restoreThread(value);
      if (!fromFile || !restored.ok || earlierFileName(restored.view.threadId) !== name) continue;
      found.set(restored.view.threadId, { ...summaryOf(restored.view), path });
    }
    return found;
  }

  /** Keeps a thread among the earlier ones (not an empty one); beyond 50, the oldest file goes. */
  private async keepEarlier(agentId: string, thread: AguiThreadView): Promise<void> {
    if (thread.items.length === 0 || !safeAgentId.test(agentId)) return;
    const earlier = await this.earlier(agentId);
    const path = join(this.earlierFolder(agentId), earlierFileName(thread.threadId));
    const store = new JsonFileStore(path, aguiThreadViewSchema, () => thread, aguiThreadFileFormat, { label: `agui-threads/${agentId}/${basename(path)}` });
    await mkdir(this.earlierFolder(agentId), { recursive: true });
    await store.save(thread);
    earlier.set(thread.threadId, { ...summaryOf(thread), path });
    const oldest = [...earlier.values()].sort((a, b) => (a.updatedAt ?? 0) - (b.updatedAt ?? 0));
    for (const gone of oldest.slice(0, Math.max(0, earlier.size - aguiServiceLimits.earlierThreads))) {
      await rm(gone.path, { force: true });
      earlier.delete(gone.threadId);
    }
  }

  private threadPath(agentId: string): string {
    return join(this.deps.userDataDir, 'agui-threads', `${agentId}.json`);
  }

  private state(agentId: string): Promise<AgentState> {
    let state = this.states.get(agentId);
    if (!state) {
      state = this.load(agentId);
      this.states.set(agentId, state);
      state.catch(() => this.states.delete(agentId));
    }
    return state;
  }

  private async load(agentId: string): Promise<AgentState> {
    if (!safeAgentId.test(agentId)) throw new ServiceError('not_found', 'That agent is no longer in your list.');
    const store = new JsonFileStore(this.threadPath(agentId), aguiThreadViewSchema, () => createThread(`thread_${randomUUID()}`), aguiThreadFileFormat, {
      label: `agui-threads/${agentId}.json`,
    });
    const { value, notice } = await store.load();
    if (notice) this.notices.push(notice);
    const restored = restoreThread(value);
    return { thread: restored.ok ? restored.view : createThread(`thread_${randomUUID()}`), store };
  }

  private async save(agentId: string, state: AgentState): Promise<void> {
    state.thread = boundThread(state.thread);
    try {
      await state.store.save(state.thread);
    } catch (error) {
      // The conversation goes on in memory; the user learns that it is not on disk (once per reason, see Notices).
      this.deps.log.error('agui', `the thread of AG-UI agent ${agentId} could not be saved`, error);
      // A newer AgentDesk's file: its load notice already said that this session does not change it.
      if (state.store.readOnly) return;
      this.notices.push(
        error instanceof ServiceError
          ? {
              code: 'conversation_not_saved',
              detail: error.message,
              message: `The conversation is kept until AgentDesk closes, but not on disk: ${error.message}`,
            }
          : { code: 'conversation_not_saved', message: `The conversation of an AG-UI agent could not be saved; it is kept until AgentDesk closes.` },
      );
    }
  }

  private async target(agentId: string): Promise<Target> {
    if (agentId === builtInAguiDemoId) {
      const endpoint = await this.deps.demoUrl();
      // The built-in demo runs inside this process on 127.0.0.1: trusted without the development setting.
      return { endpoint, policy: { allowLocalHttp: true }, tokenAccount: tokenAccountFor(endpoint) };
    }
    const agent = this.deps.agents.get(agentId);
    if (agent.protocol !== 'agui') throw new ServiceError('incompatible', `${agent.display} was not added as a plain AG-UI endpoint.`);
    return {
      endpoint: agent.url,
      policy: { allowLocalHttp: this.deps.agents.allowsLocalHttp(agentId, this.deps.settings.get().developer.allowLocalHttp) },
      tokenAccount: tokenAccountFor(agent.url),
    };
  }
}

/** Bearer tokens of plain AG-UI servers live beside the others in the keychain, keyed by the endpoint (origin and path). */
export function tokenAccountFor(endpoint: string): string {
  const url = new URL(endpoint);
  return `agui:${url.origin}${url.pathname}`;
}

/** The first problems as one `invalid_request`, with the first one's path under `base`. */
function problemError(problems: readonly Problem[], base: string): ServiceError {
  const first = problems[0];
  const message = problems
    .slice(0, 3)
    .map((problem) => problem.message)
    .join(' ')
    .slice(0, 1000);
  return new ServiceError('invalid_request', message || 'The request is not valid.', `${base}${first?.path ?? ''}`);
}

/** An earlier thread's file name: a hash of its id, so that no id can name a path. */
function earlierFileName(threadId: string): string {
  return `${createHash('sha256').update(threadId).digest('hex').slice(0, 32)}.json`;
}

/** A thread as the list and the search see it: the first message of the user's as its title, its text (bounded), its newest time. */
function summaryOf(thread: AguiThreadView): Omit<EarlierThread, 'path'> {
  const first = thread.items.find((item) => item.kind === 'user');
  const texts: string[] = [];
  let room: number = aguiServiceLimits.searchCharsPerThread;
  for (const item of thread.items) {
    if ((item.kind !== 'user' && item.kind !== 'text') || room <= 0) continue;
    texts.push(item.text.slice(0, room));
    room -= item.text.length;
  }
  const times = thread.items.flatMap((item) => (item.at === undefined ? [] : [item.at]));
  const updatedAt = times.length > 0 ? Math.max(...times) : undefined;
  return {
    threadId: thread.threadId,
    title: first?.kind === 'user' ? threadTitleFromMessage(first.text) : '',
    texts,
    ...(updatedAt === undefined ? {} : { updatedAt }),
  };
}

function isSnapshot(event: unknown): boolean {
  return typeof event === 'object' && event !== null && (event as { type?: unknown }).type === 'MESSAGES_SNAPSHOT';
}

/** Files under a folder (0 when it is not there). */
async function countFiles(folder: string): Promise<number> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).length;
}
