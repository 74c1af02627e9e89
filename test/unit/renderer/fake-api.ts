import type { Notice } from '../../../src/shared/ipc/notices';
import type { AgentCallAgent } from '../../../src/shared/agentcall/ipc-schemas';
import type { WebPages } from '../../../src/shared/agentmesh/ipc-schemas';
import type { AguiServerView } from '../../../src/shared/agui/ipc-schemas';
import { addUserMessage, beginRun, createThread, markStreamDropped, shownThread, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { openWindow } from '../../../src/shared/agui/thread-window';
import { boundItems, earlierWindowOf, firstWindow } from '../../../src/shared/conversation/bounds';
import { normalizeAgentAddress } from '../../../src/shared/agents/address';
import { normalizeAgentLabel } from '../../../src/shared/agents/label';
import { buildApi, type AgentDeskApi, type ApiTransport } from '../../../src/shared/ipc/api';
import {
  builtInAgentCallDemoId,
  builtInAguiDemoId,
  builtInDemoAgentId,
  contract,
  eventChannel,
  methodChannel,
  methodForChannel,
  methodNames,
  type AgentCheck,
  type AgentEntry,
  type EventName,
  type EventPayload,
  type HardwareStatus,
  type MethodName,
  type MethodRequest,
  type MethodResponse,
} from '../../../src/shared/ipc/contract';
import type { A2AAgentView } from '../../../src/shared/ipc/contract';
import { fail, ok, ServiceError, type IpcError, type IpcResult } from '../../../src/shared/base/errors';
import { applySettingsPatch, defaultSettings, type Settings } from '../../../src/shared/settings/settings';
import type { Action } from '../../../src/shared/talkie/content';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import type { ConversationItem } from '../../../src/shared/talkie/conversation';
import type { ServerView } from '../../../src/shared/talkie/ipc-schemas';
import { UiMemory } from '../../../src/main/app/ui-memory';
import { searchThreads } from '../../../src/shared/threads/thread-search';
import { talkieConversationHandlers } from '../../../src/main/app/talkie-conversation';
import { talkieAdapter, type TalkiePort } from '../../../src/main/conversation/talkie-source';
import type { TalkieServiceTable } from '../../../src/main/talkie/talkie-table';
import { aguiAdapter, type AguiThreads } from '../../../src/main/conversation/agui-source';
import { answer, fakeConversations, type FakeConversations } from './fake-conversation';

type Handler<M extends MethodName> = (request: MethodRequest<M>) => IpcResult<MethodResponse<M>> | Promise<IpcResult<MethodResponse<M>>>;
type Handlers = { [M in MethodName]: Handler<M> };

export type ThreadSummary = MethodResponse<'talkie.threads'>['threads'][number];

/** What the fake main knows about Talkie agents. */
export interface TalkieState {
  /** The server view per agent id (`talkie.connect`); the built-in demo has one by default. */
  views: Record<string, ServerView>;
  status: MethodResponse<'talkie.status'>;
  threads: ThreadSummary[];
  /** `talkie.thread` answers, by thread id. */
  threadItems: Record<string, ConversationItem[]>;
  /** `talkie.action` answers, by action id. */
  actions: Record<string, Action>;
}

/** The built-in demo's view as main reports it (signed in, no problems); tests change copies of it. */
export function demoView(overrides: Partial<ServerView> = {}): ServerView {
  return {
    agentId: builtInDemoAgentId,
    serverId: 'demo.agentdesk.local',
    issuer: 'http://127.0.0.1:41234',
    name: 'AgentDesk Demo',
    description: 'A demo agent inside AgentDesk',
    accent: '#0b7a75',
    testMode: true,
    signedIn: true,
    signIn: { oauth: false, pastedToken: false },
    crossOriginEndpoints: [],
    endpointsAccepted: true,
    problems: [],
    tokenStorage: { kind: 'keychain' },
    voice: { offered: false, code: 'voice_not_offered', message: 'This server does not offer voice.' },
    ...overrides,
  };
}

export interface FakeBackend {
  /** Built with the real buildApi over an in-memory transport. */
  api: AgentDeskApi;
  state: {
    settings: Settings;
    agents: AgentEntry[];
    hardware: HardwareStatus;
    notices: Notice[];
    shell: 'electron' | 'web';
    talkie: TalkieState;
    /** Agents that `agents.identify` reports as AgentCall (the built-in AgentCall demo always is). */
    agentCallAgents: string[];
    /** What `agentcall.open` answers about the agent. */
    agentCall: AgentCallAgent;
    /**
     * Plain AG-UI servers by agent id (created on first `agui.open`). Like main's AG-UI service, the
     * fake tells the agent's open conversation every thread set here (a run's progress, a new thread):
     * the page sees it through `conversation.*`, projected as main projects it.
     */
    agui: Record<string, AguiServerView>;
    /** Earlier plain AG-UI threads by agent id, newest first (`agui.newThread` keeps the open one here). */
    aguiEarlier: Record<string, AguiThreadView[]>;
    /** What `agents.webPages` answers, by agent id (none by default). */
    webPages: Record<string, WebPages>;
    /** Agents that `agents.identify` reports as plain A2A agents, with what their page shows. */
    a2aAgents: Record<string, A2AAgentView>;
    /**
     * What `agents.check` finds, by normalized display (`crm.example.com`); an address not listed is found
     * as a Talkie server named after it (a plain AG-UI check: an endpoint that answers).
     */
    checks: Record<string, AgentCheck>;
    /** What `policy.status` answers (no device policy by default). */
    policy: DevicePolicyStatus;
  };
  /** Every call that reached the fake main, in order, after the contract's request schema accepted it. */
  calls: { method: MethodName; request: unknown }[];
  callsOf<M extends MethodName>(method: M): MethodRequest<M>[];
  /** The next call of `method` answers with this failure instead of running the handler. */
  failNext(method: MethodName, error: IpcError): void;
  /** The next call of `method` waits until the returned function is called. */
  holdNext(method: MethodName): () => void;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  listenerCount(event: EventName): number;
  /** Stop (or resume) pushing events, like a transport that lost its subscriptions. */
  muteEvents(muted: boolean): void;
  /** Replaces how main answers `method` (for every later call). */
  handle<M extends MethodName>(method: M, handler: Handler<M>): void;
  /** `conversation.*`: main's real conversation service over sources the test drives. */
  conversations: FakeConversations;
}

let nextId = 1;

/**
 * A fake main process: keeps settings and agents in memory, validates every request and answer
 * against the real contract (like the dispatcher does), and pushes change events like the services.
 */
export function createFakeBackend(initial: Partial<FakeBackend['state']> = {}): FakeBackend {
  const state: FakeBackend['state'] = {
    settings: structuredClone(defaultSettings),
    agents: [],
    hardware: { nfc: { state: 'unavailable', readers: [], detail: 'NFC reader support is not part of this version yet.' } },
    notices: [],
    shell: 'web',
    talkie: {
      views: { [builtInDemoAgentId]: demoView() },
      status: { user: { name: 'Demo User' }, usage: [{ label: 'Tokens today', used: 12000, limit: 400000, unit: 'tokens' }] },
      threads: [],
      threadItems: {},
      actions: {},
    },
    agentCallAgents: [],
    agentCall: {
      name: 'AgentDesk demo agent',
      description: 'Scans, photos and teaching.',
      version: '0.1.0',
      cardUrl: 'http://127.0.0.1:9/.well-known/agent-card.json',
      endpoint: 'http://127.0.0.1:9/agui',
      accepted: ['nfc', 'photo'],
      agentRequests: ['nfc', 'photo'],
      legacyExtension: false,
      skills: [{ name: 'Recognise taught objects', description: 'Teach it names of scanned objects.' }],
      notes: [],
      voice: { owner: 'client', transport: 'websocket', explicitTurns: false },
    },
    agui: {},
    aguiEarlier: {},
    webPages: {},
    a2aAgents: {},
    checks: {},
    policy: { state: 'none' },
    ...initial,
  };
  // Who follows an agent's thread (main's conversation source, through `agui.watch`).
  const aguiFollowers = new Map<string, Set<(thread: AguiThreadView) => void>>();
  state.agui = new Proxy(state.agui, {
    set(target, agentId, view: AguiServerView) {
      if (typeof agentId !== 'string') return false;
      target[agentId] = view;
      for (const follower of aguiFollowers.get(agentId) ?? []) follower(view.thread);
      return true;
    },
  });
  const aguiTitle = (thread: AguiThreadView) => {
    const first = thread.items.find((item) => item.kind === 'user');
    return first?.kind === 'user' ? first.text.slice(0, 60) : '';
  };
  const aguiList = (agentId: string): MethodResponse<'agui.threads'> => {
    const open = aguiView(agentId).thread;
    const threads = [...(open.items.length > 0 ? [open] : []), ...(state.aguiEarlier[agentId] ?? [])];
    return { currentThreadId: open.threadId, threads: threads.map((thread) => ({ threadId: thread.threadId, title: aguiTitle(thread) })) };
  };
  const aguiView = (agentId: string): AguiServerView =>
    (state.agui[agentId] ??= { endpoint: 'http://127.0.0.1:9/agui', hasToken: false, forwardedProps: '{}', thread: createThread(`thread-${agentId}`) });
  // As main answers it: the thread's newest window, without the encrypted values (they never leave main).
  const aguiWindow = (agentId: string): AguiServerView => {
    const view = aguiView(agentId);
    return { ...view, thread: openWindow(view.thread).window };
  };
  const aguiRunning = (view: AguiServerView) => view.thread.runState === 'starting' || view.thread.runState === 'running';
  let runs = 0;
  const talkieView = (agentId: string): IpcResult<ServerView> => {
    const view = state.talkie.views[agentId];
    return view ? ok(view) : fail('not_found', 'That agent is no longer in your list.');
  };
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: FakeBackend['calls'] = [];
  const failures = new Map<MethodName, IpcError>();
  const holds = new Map<MethodName, Promise<void>>();
  let eventsMuted = false;

  // Main's own listeners (its conversations follow the protocols' events): they hear every event, muted or not.
  const observers = new Map<string, Set<(payload: never) => void>>();
  const bus = {
    observe<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void) {
      let set = observers.get(event);
      if (set === undefined) observers.set(event, (set = new Set()));
      set.add(listener as (payload: never) => void);
      return () => set.delete(listener as (payload: never) => void);
    },
  };
  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    for (const observer of observers.get(event) ?? []) (observer as (payload: EventPayload<E>) => void)(structuredClone(payload));
    if (eventsMuted) return;
    for (const listener of listeners.get(eventChannel(event)) ?? []) listener(structuredClone(payload));
  };

  // Main's own memory of the renderer's state: a remount on the same backend is a reload with the same main.
  const uiMemory = new UiMemory();
  // Main's real Talkie conversation over this fake's talkie.*: what it sends, cancels and reads goes
  // through the transport (callsOf, failNext and holdNext see it); connecting and the newest thread do not.
  const talkiePort: TalkiePort = {
    connect: async (agentId) => unwrap(await handlers['talkie.connect']({ agentId })),
    threads: async (agentId) => unwrap(await handlers['talkie.threads']({ agentId })),
    thread: async (agentId, threadId) => unwrap(await api.talkie.thread({ agentId, threadId })),
    // Main's whole thread within the budget; the read still goes through the transport (callsOf, failNext).
    heldThread: async (agentId, threadId) => {
      unwrap(await api.talkie.thread({ agentId, threadId }));
      const held = boundItems(state.talkie.threadItems[threadId] ?? []);
      return { threadId, items: [...held.items], removedItems: held.removed };
    },
    send: async (agentId, request) =>
      unwrap(
        await api.talkie.send({
          agentId,
          messageId: request.messageId,
          text: request.text,
          ...(request.threadId === undefined ? {} : { threadId: request.threadId }),
        }),
      ),
    cancel: async (agentId, runKey) => unwrap(await api.talkie.cancel({ agentId, runKey })),
    cancelAll: async () => 0,
  };
  const talkieConversations = talkieAdapter(talkiePort, bus);
  /** What main's conversation source asks of main's AG-UI service: the same handlers (recorded in `calls` like the page's). */
  const mainCall = async <M extends MethodName>(method: M, request: MethodRequest<M>): Promise<MethodResponse<M>> => {
    const result = (await transport.invoke(methodChannel(method), request)) as IpcResult<MethodResponse<M>>;
    if (!result.ok) throw new ServiceError(result.error.code, result.error.message, result.error.path);
    return result.value;
  };
  const aguiThreads: AguiThreads = {
    openThread: (agentId, threadId) => mainCall('agui.openThread', { agentId, threadId }),
    // Main reads the agent (an unknown one, or a failNext('agui.open'), fails here as in main), then its thread.
    held: async (agentId) => {
      await mainCall('agui.open', { agentId });
      return shownThread(aguiView(agentId).thread);
    },
    send: (agentId, message) => mainCall('agui.send', { agentId, ...message }),
    cancel: (agentId) => mainCall('agui.cancel', { agentId }),
    resetAll: async () => ({ runs: 0, files: 0 }),
    watch: (agentId, changed) => {
      let followers = aguiFollowers.get(agentId);
      if (followers === undefined) aguiFollowers.set(agentId, (followers = new Set()));
      followers.add(changed);
      return () => followers.delete(changed);
    },
  };
  const conversations = fakeConversations((payload) => emit('conversation.update', payload), {
    adapters: { agui: aguiAdapter(aguiThreads), talkie: talkieConversations },
    protocolOf: async (agentId) => {
      if (agentId === builtInAguiDemoId || state.agents.some((agent) => agent.id === agentId && agent.protocol === 'agui')) return 'agui';
      return agentId === builtInAgentCallDemoId || state.agentCallAgents.includes(agentId) ? 'agentcall' : 'talkie';
    },
  });
  const { service: conversation } = conversations;
  const handlers: Handlers = {
    'ui.restore': () => ok(uiMemory.restore()),
    'ui.saveScreen': ({ screen }) => ok(uiMemory.saveScreen(screen)),
    'ui.saveDraft': ({ key, text }) => ok(uiMemory.saveDraft(key, text)),
    'app.info': () => ok({ name: 'AgentDesk', version: '0.1.0', shell: state.shell, platform: 'linux', notices: [...state.notices] }),
    'policy.status': () => ok(state.policy),
    'policy.unlockAdmin': () => ok({ unlocked: false, reason: 'no_pin', retryAfterSeconds: 0, freeTriesLeft: 0 }),
    'diagnostics.save': () => ok({ saved: true, file: '/home/user/Downloads/agentdesk-diagnostics.json', bytes: 2048 }),
    'kiosk.reset': () => {
      const discardedPhotos = 0;
      uiMemory.clear();
      return ok({ ended: 0, discardedPhotos, removedFiles: 0 });
    },
    'kiosk.startTag': () => ok({ sent: true }),
    'settings.get': () => ok(state.settings),
    'settings.update': ({ patch }) => {
      state.settings = applySettingsPatch(state.settings, patch);
      emit('settings.changed', state.settings);
      return ok(state.settings);
    },
    'agents.list': () => ok({ agents: state.agents }),
    'agents.add': ({ address, kind }) => {
      try {
        const normalized = normalizeAgentAddress(address, { allowLocalHttp: state.settings.developer.allowLocalHttp });
        const existing = state.agents.find((agent) => agent.url === normalized.url);
        if (existing) return fail('already_exists', `${existing.display} is already in your list.`, '/address');
        const agent: AgentEntry = {
          id: `agent-${nextId++}`,
          url: normalized.url,
          display: normalized.display,
          addedAt: new Date().toISOString(),
          ...(kind === 'agui' ? { protocol: 'agui' as const } : {}),
        };
        state.agents = [...state.agents, agent];
        emit('agents.changed', { agents: state.agents });
        return ok({ agent });
      } catch (error) {
        if (error instanceof ServiceError) return fail(error.code, error.message, error.path);
        throw error;
      }
    },
    'agents.check': ({ address, kind }) => {
      try {
        const normalized = normalizeAgentAddress(address, { allowLocalHttp: state.settings.developer.allowLocalHttp });
        const existing = state.agents.find((agent) => agent.url === normalized.url);
        if (existing) return fail('already_exists', `${existing.display} is already in your list.`, '/address');
        const known = state.checks[normalized.display];
        if (known) return ok({ ...known, display: normalized.display });
        return ok(
          kind === 'agui'
            ? { found: true, kind: 'agui', display: normalized.display }
            : { found: true, kind: 'talkie', display: normalized.display, name: `Server at ${normalized.display}` },
        );
      } catch (error) {
        if (error instanceof ServiceError) return fail(error.code, error.message, error.path);
        throw error;
      }
    },
    'agents.rename': ({ id, name }) => {
      const agent = state.agents.find((entry) => entry.id === id);
      if (!agent) return fail('not_found', 'That agent is no longer in your list.', '/id');
      let label: string;
      try {
        label = normalizeAgentLabel(name);
      } catch (error) {
        if (error instanceof ServiceError) return fail(error.code, error.message, error.path);
        throw error;
      }
      const renamed = { ...agent, label };
      state.agents = state.agents.map((entry) => (entry.id === id ? renamed : entry));
      emit('agents.changed', { agents: state.agents });
      return ok({ agent: renamed });
    },
    'agents.remove': ({ id }) => {
      if (!state.agents.some((agent) => agent.id === id)) return fail('not_found', 'That agent is no longer in your list.', '/id');
      state.agents = state.agents.filter((agent) => agent.id !== id);
      emit('agents.changed', { agents: state.agents });
      return ok({ agents: state.agents });
    },
    'agents.restore': ({ agent, index }) => {
      if (state.agents.some((entry) => entry.id === agent.id || entry.url === agent.url))
        return fail('already_exists', `${agent.display} is already in your list.`, '/agent');
      state.agents = [...state.agents.slice(0, index), agent, ...state.agents.slice(index)];
      emit('agents.changed', { agents: state.agents });
      return ok({ agents: state.agents });
    },
    'hardware.status': () => ok(state.hardware),
    'external.open': () => ok({ opened: true as const }),
    'media.arm': ({ kinds }) => ok({ armed: kinds }),
    'media.disarm': () => ok({ armed: [] }),
    'photo.stage': (request) =>
      ok({
        photoId: `photo${String(nextId++).padStart(17, '0')}`,
        // The renderer only turns the base64 into a Blob; a bare SOI/EOI is enough here.
        preview: 'data:image/jpeg;base64,/9j/2Q==',
        byteCount: 4,
        pixelWidth: request.kind === 'frame' ? Math.min(request.width, 1024) : 800,
        pixelHeight: request.kind === 'frame' ? Math.min(request.height, 1024) : 600,
      }),
    'photo.discard': () => ok({ discarded: true }),
    'demo.open': () => ok({ agentId: builtInDemoAgentId }),
    'demo.openAgentCall': () => ok({ agentId: builtInAgentCallDemoId }),
    'agents.identify': ({ agentId }) => {
      const a2a = state.a2aAgents[agentId];
      if (a2a) return ok({ protocol: 'a2a', agent: a2a });
      if (agentId === builtInAguiDemoId || state.agents.some((agent) => agent.id === agentId && agent.protocol === 'agui')) return ok({ protocol: 'agui' });
      return ok({ protocol: agentId === builtInAgentCallDemoId || state.agentCallAgents.includes(agentId) ? 'agentcall' : 'talkie' });
    },
    'agentcall.card': () => ok({ agent: state.agentCall }),
    'agentcall.open': () =>
      ok({
        sessionKey: `session-${nextId++}`,
        agent: state.agentCall,
        updates: [
          { type: 'session.starting', sessionId: 'agentdesk-fake', usableModalities: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true },
        ],
      }),
    'agents.webPages': ({ agentId }) => ok(state.webPages[agentId] ?? { links: [], problems: [] }),
    // The real matcher over what this fake main holds: the thread list's titles and the threads' items.
    'agents.searchThreads': ({ query }) =>
      ok({
        results: searchThreads(
          state.talkie.threads.map((thread) => ({
            threadId: thread.id,
            title: thread.title || (thread.firstMessage ?? ''),
            texts: (state.talkie.threadItems[thread.id] ?? []).flatMap((item) => (item.kind === 'user' || item.kind === 'assistant' ? [item.text] : [])),
          })),
          query,
        ),
      }),
    'demo.openAgui': () => ok({ agentId: builtInAguiDemoId }),
    'agui.open': ({ agentId }) => ok(aguiWindow(agentId)),
    // As main's AG-UI service: a run begins at once (its events are the test's to fold into the thread).
    'agui.send': ({ agentId, messageId, text }) => {
      const view = aguiView(agentId);
      if (aguiRunning(view)) return fail('rejected', 'A run is still going on; wait for it to end or stop it.');
      const runId = `run-${nextId++}`;
      state.agui[agentId] = { ...view, thread: beginRun(addUserMessage(view.thread, { id: messageId, text }), { runId }) };
      return ok({ runId });
    },
    'agui.resume': ({ agentId, answers }) => {
      const view = aguiView(agentId);
      if (aguiRunning(view)) return fail('rejected', 'A run is still going on; wait for it to end or stop it.');
      const runId = `run-${nextId++}`;
      state.agui[agentId] = {
        ...view,
        thread: beginRun(view.thread, { runId, resume: Object.entries(answers).map(([interruptId, answer]) => ({ interruptId, ...answer })) }),
      };
      return ok({ runId });
    },
    'agui.retry': ({ agentId }) => {
      const view = aguiView(agentId);
      if (aguiRunning(view)) return fail('rejected', 'A run is still going on; wait for it to end or stop it.');
      const runId = `run-${nextId++}`;
      state.agui[agentId] = { ...view, thread: beginRun(view.thread, { runId }) };
      return ok({ runId });
    },
    'agui.cancel': ({ agentId }) => {
      const view = aguiView(agentId);
      if (!aguiRunning(view)) return ok({ cancelled: false });
      state.agui[agentId] = { ...view, thread: markStreamDropped(view.thread, 'You stopped this run.') };
      return ok({ cancelled: true });
    },
    'agui.newThread': ({ agentId }) => {
      const open = aguiView(agentId).thread;
      if (open.items.length > 0) state.aguiEarlier[agentId] = [open, ...(state.aguiEarlier[agentId] ?? [])];
      state.agui[agentId] = { ...aguiView(agentId), thread: createThread(`thread-${nextId++}`) };
      return ok(aguiWindow(agentId));
    },
    'agui.threads': ({ agentId }) => ok(aguiList(agentId)),
    'agui.openThread': ({ agentId, threadId }) => {
      const earlier = state.aguiEarlier[agentId] ?? [];
      const chosen = earlier.find((thread) => thread.threadId === threadId);
      if (!chosen) return threadId === aguiView(agentId).thread.threadId ? ok(aguiWindow(agentId)) : fail('not_found', 'That thread is no longer there.');
      const open = aguiView(agentId).thread;
      state.aguiEarlier[agentId] = [...(open.items.length > 0 ? [open] : []), ...earlier.filter((thread) => thread !== chosen)];
      state.agui[agentId] = { ...aguiView(agentId), thread: chosen };
      return ok(aguiWindow(agentId));
    },
    'agui.deleteThread': ({ agentId, threadId }) => {
      if (threadId === aguiView(agentId).thread.threadId) state.agui[agentId] = { ...aguiView(agentId), thread: createThread(`thread-${nextId++}`) };
      else state.aguiEarlier[agentId] = (state.aguiEarlier[agentId] ?? []).filter((thread) => thread.threadId !== threadId);
      return ok(aguiList(agentId));
    },
    'agui.setForwardedProps': ({ agentId, json }) => {
      state.agui[agentId] = { ...aguiView(agentId), forwardedProps: json };
      const { thread: _thread, ...settings } = aguiView(agentId);
      return ok(settings);
    },
    'agui.useToken': ({ agentId, token }) => {
      state.agui[agentId] = { ...aguiView(agentId), hasToken: token !== '' };
      const { thread: _thread, ...settings } = aguiView(agentId);
      return ok(settings);
    },
    'agentcall.useToken': () => ok({ saved: true as const }),
    'agentcall.sendText': () => ok({ sent: true as const }),
    'agentcall.sendObservation': () => ok({ sent: true as const }),
    'agentcall.answerProposal': () => ok({ sent: true as const }),
    'agentcall.confirmRecipe': () => ok({ sent: true as const }),
    'agentcall.decline': () => ok({ sent: true as const }),
    'agentcall.cancel': () => ok({ sent: true as const }),
    'agentcall.end': () => ok({ ended: true }),
    // agentcall-webrtc-0.1 calls: the renderer has no call control yet, so these are never called here.
    'agentcall.callOffer': () => fail('incompatible', 'The fake API makes no calls.'),
    'agentcall.callOpened': () => fail('session_ended', 'The fake API makes no calls.'),
    'agentcall.callMessage': () => ok({ taken: false }),
    'agentcall.callClosed': () => ok({ ended: false }),
    'agentcall.audioTurn': () => fail('session_ended', 'The fake API makes no calls.'),
    'talkie.connect': ({ agentId }) => talkieView(agentId),
    'talkie.acceptEndpoints': ({ agentId }) => {
      const view = state.talkie.views[agentId];
      if (view) state.talkie.views[agentId] = { ...view, endpointsAccepted: true };
      return talkieView(agentId);
    },
    'talkie.useToken': ({ agentId }) => {
      const view = state.talkie.views[agentId];
      if (view) state.talkie.views[agentId] = { ...view, signedIn: true };
      return talkieView(agentId);
    },
    'talkie.signIn': ({ agentId }) => {
      const view = state.talkie.views[agentId];
      if (view) state.talkie.views[agentId] = { ...view, signedIn: true };
      return talkieView(agentId);
    },
    'talkie.cancelSignIn': () => ok({ cancelled: true }),
    'talkie.openSignInLink': () => ok({ opened: true }),
    'talkie.signOut': ({ agentId }) => {
      const view = state.talkie.views[agentId];
      if (view) state.talkie.views[agentId] = { ...view, signedIn: false };
      return talkieView(agentId);
    },
    'talkie.status': () => ok(state.talkie.status),
    'talkie.send': ({ threadId }) => {
      runs += 1;
      return ok({ runKey: `run-${runs}`, threadId: threadId ?? `t-${runs}` });
    },
    'talkie.cancel': () => ok({ cancelled: true }),
    'talkie.threads': () => ok({ threads: state.talkie.threads }),
    // A window of the thread, as from main (conversation/bounds.ts).
    'talkie.thread': ({ threadId }) => {
      const items = state.talkie.threadItems[threadId];
      return items ? ok({ threadId, ...firstWindow(boundItems(items)) }) : fail('not_found', 'That chat no longer exists.');
    },
    'talkie.threadEarlier': ({ threadId, before }) => {
      const items = state.talkie.threadItems[threadId];
      return items ? ok(earlierWindowOf(boundItems(items), before).answer) : fail('not_found', 'That chat is no longer open here; open it again.');
    },
    'talkie.deleteThread': ({ threadId }) => {
      state.talkie.threads = state.talkie.threads.filter((thread) => thread.id !== threadId);
      return ok({ threads: state.talkie.threads });
    },
    'talkie.decide': ({ actionId, decision }) => {
      const action = state.talkie.actions[actionId];
      if (!action) return fail('not_found', 'That action no longer exists.');
      const decided: Action = { ...action, status: decision === 'confirm' ? 'done' : 'cancelled' };
      state.talkie.actions[actionId] = decided;
      return ok({ action: decided, updates: [] });
    },
    'talkie.action': ({ actionId }) => {
      const action = state.talkie.actions[actionId];
      return action ? ok({ action }) : fail('not_found', 'That action no longer exists.');
    },
    'nfc.arm': () => ok({ scanId: 'scan-1', expiresAt: new Date(Date.now() + 30_000).toISOString() }),
    'nfc.cancel': () => ok({ cancelled: true }),
    'nfc.kiosk': () => ok({ armed: false }),
    'talkie.download': ({ agentId, downloadId, name }) => {
      emit('talkie.downloadProgress', { agentId, downloadId, received: 50, total: 100 });
      return ok({ saved: true, path: `/home/user/Downloads/${name}`, bytes: 100 });
    },
    // Answered by main's folding table (talkie-conversation.ts), which the transport runs for talkie.*.
    'talkie.newChat': () => fail('internal', 'answered by the conversation'),
    'talkie.voiceLine': () => fail('internal', 'answered by the conversation'),
    // Voice (#16): no renderer UI yet; the fake offers no voice.
    'talkie.voiceStart': () => fail('not_allowed', 'This server does not offer voice.'),
    'talkie.voiceOffer': () => fail('not_found', 'This voice call has ended; start a new one.'),
    'talkie.voiceTool': () => fail('not_found', 'This voice call has ended; start a new one.'),
    'talkie.voiceDecide': () => fail('not_found', 'This voice call has ended; start a new one.'),
    'talkie.voiceTranscript': () => fail('not_found', 'This voice call has ended; start a new one.'),
    'talkie.voiceProviderError': () => ok({ logged: true }),
    'talkie.voiceUsage': () => fail('not_found', 'This voice call has ended; start a new one.'),
    'talkie.voiceShortcut': ({ armed }) => ok(armed ? { state: 'unavailable' } : { state: 'off' }),
    'talkie.voiceEnd': () => ok({ ended: false }),
    // Speech (#17): this fake computer has espeak-ng and no recognizer.
    'speech.status': () =>
      ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: false, engine: 'none', reason: 'No speech model is imported.' } }),
    'speech.synthesize': () => ok({ wav: new Uint8Array(44) }),
    'speech.transcribe': () => fail('speech_unavailable', 'No speech model is imported: import one in Settings → Speech, or type instead.'),
    'speech.importModel': () => fail('speech_model_invalid', 'This folder holds no speech model AgentDesk can load.'),
    'speech.removeModel': () => ok({}),
    'conversation.open': ({ agentId, threadId, renew }) =>
      answer(() => conversation.openConversation(agentId, { ...(threadId === undefined ? {} : { threadId }), ...(renew === true ? { renew } : {}) })),
    'conversation.view': ({ agentId, conversationId }) => answer(() => conversation.view(agentId, conversationId)),
    'conversation.send': ({ agentId, conversationId, messageId, text }) => answer(() => conversation.send(agentId, conversationId, { messageId, text })),
    'conversation.unqueue': ({ agentId, conversationId, messageId }) => answer(() => conversation.unqueue(agentId, conversationId, messageId)),
    'conversation.cancel': ({ agentId, conversationId }) => answer(() => conversation.cancel(agentId, conversationId)),
    'conversation.earlier': ({ agentId, conversationId }) => answer(() => conversation.earlier(agentId, conversationId)),
    'conversation.close': ({ agentId }) => answer(async () => ({ closed: await conversation.close(agentId) })),
  };

  const transport: ApiTransport = {
    async invoke(channel, request) {
      const method = methodForChannel(channel);
      if (!method) return fail('invalid_request', `Unknown channel ${channel}`);
      const schema = contract.methods[method];
      const parsed = schema.request.safeParse(request);
      if (!parsed.success) return fail('invalid_request', `${method}: ${parsed.error.message}`);
      calls.push({ method, request: parsed.data });
      await holds.get(method);
      holds.delete(method);
      const failure = failures.get(method);
      if (failure) {
        failures.delete(method);
        return { ok: false, error: failure };
      }
      // Talkie's answers are folded into the open conversation as main does it (talkie-conversation.ts).
      const run = method.startsWith('talkie.')
        ? (request: unknown) => folded(method as TalkieMethod, request)
        : (handlers[method] as (request: unknown) => Promise<IpcResult<unknown>> | IpcResult<unknown>);
      const result = await run(parsed.data);
      if (!result.ok) return result;
      const answer = schema.response.safeParse(result.value);
      if (!answer.success) return fail('invalid_response', `${method}: ${answer.error.message}`);
      return ok(structuredClone(answer.data));
    },
    subscribe(channel, listener) {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      set.add(listener);
      return () => void set.delete(listener);
    },
  };

  const api = buildApi(transport);
  // This fake's talkie.* answers (looked up at each call: `handle` may replace one) as main's service table.
  const serviceTable = Object.fromEntries(
    methodNames
      .filter((method) => method.startsWith('talkie.'))
      .map((method) => [
        method,
        async (request: unknown) => unwrap(await (handlers[method] as (request: unknown) => Promise<IpcResult<unknown>> | IpcResult<unknown>)(request)),
      ]),
  ) as unknown as TalkieServiceTable;
  const talkieTable = talkieConversationHandlers(serviceTable, { talkie: talkieConversations, conversations: conversation });
  async function folded(method: TalkieMethod, request: unknown): Promise<IpcResult<unknown>> {
    try {
      return ok(await (talkieTable[method] as (request: unknown) => unknown)(request));
    } catch (error) {
      if (error instanceof Refused) return { ok: false, error: error.error };
      return error instanceof ServiceError ? fail(error.code, error.message) : fail('internal', String(error));
    }
  }

  return {
    api,
    state,
    calls,
    callsOf: <M extends MethodName>(method: M) => calls.filter((entry) => entry.method === method).map((entry) => entry.request as MethodRequest<M>),
    failNext: (method, error) => void failures.set(method, error),
    holdNext: (method) => {
      let release: () => void = () => undefined;
      holds.set(method, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    },
    emit,
    listenerCount: (event) => listeners.get(eventChannel(event))?.size ?? 0,
    muteEvents: (muted) => void (eventsMuted = muted),
    handle: (method, handler) => {
      (handlers as Record<MethodName, unknown>)[method] = handler;
    },
    conversations,
  };
}

type TalkieMethod = Extract<MethodName, `talkie.${string}`>;

/** A failure this fake main answered, carried through main's code as it is (code, message, retryable, path). */
class Refused extends ServiceError {
  constructor(readonly error: IpcError) {
    super(error.code, error.message, error.path, error.retryable);
  }
}

/** An answer of this fake main as a service's: its value, or its failure thrown. */
function unwrap<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new Refused(result.error);
  return result.value;
}
