import { normalizeAgentAddress } from '../../../src/shared/agents/address';
import { buildApi, type AgentDeskApi, type ApiTransport } from '../../../src/shared/ipc/api';
import {
  contract,
  eventChannel,
  methodForChannel,
  type AgentEntry,
  type EventName,
  type EventPayload,
  type HardwareStatus,
  type MethodName,
  type MethodRequest,
  type MethodResponse,
} from '../../../src/shared/ipc/contract';
import { fail, ok, ServiceError, type IpcError, type IpcResult } from '../../../src/shared/ipc/errors';
import { applySettingsPatch, defaultSettings, type Settings } from '../../../src/shared/settings/settings';

type Handler<M extends MethodName> = (request: MethodRequest<M>) => IpcResult<MethodResponse<M>> | Promise<IpcResult<MethodResponse<M>>>;
type Handlers = { [M in MethodName]: Handler<M> };

export interface FakeBackend {
  /** Built with the real buildApi over an in-memory transport. */
  api: AgentDeskApi;
  state: { settings: Settings; agents: AgentEntry[]; hardware: HardwareStatus; notices: string[]; shell: 'electron' | 'web' };
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
    ...initial,
  };
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: FakeBackend['calls'] = [];
  const failures = new Map<MethodName, IpcError>();
  const holds = new Map<MethodName, Promise<void>>();
  let eventsMuted = false;

  const emit = <E extends EventName>(event: E, payload: EventPayload<E>) => {
    if (eventsMuted) return;
    for (const listener of listeners.get(eventChannel(event)) ?? []) listener(structuredClone(payload));
  };

  const handlers: Handlers = {
    'app.info': () => ok({ name: 'AgentDesk', version: '0.1.0', shell: state.shell, platform: 'linux', notices: [...state.notices] }),
    'settings.get': () => ok(state.settings),
    'settings.update': ({ patch }) => {
      state.settings = applySettingsPatch(state.settings, patch);
      emit('settings.changed', state.settings);
      return ok(state.settings);
    },
    'agents.list': () => ok({ agents: state.agents }),
    'agents.add': ({ address }) => {
      try {
        const normalized = normalizeAgentAddress(address, { allowLocalHttp: state.settings.developer.allowLocalHttp });
        const existing = state.agents.find((agent) => agent.url === normalized.url);
        if (existing) return fail('already_exists', `${existing.display} is already in your list.`, '/address');
        const agent = { id: `agent-${nextId++}`, url: normalized.url, display: normalized.display, addedAt: new Date().toISOString() };
        state.agents = [...state.agents, agent];
        emit('agents.changed', { agents: state.agents });
        return ok({ agent });
      } catch (error) {
        if (error instanceof ServiceError) return fail(error.code, error.message, error.path);
        throw error;
      }
    },
    'agents.remove': ({ id }) => {
      if (!state.agents.some((agent) => agent.id === id)) return fail('not_found', 'That agent is no longer in your list.', '/id');
      state.agents = state.agents.filter((agent) => agent.id !== id);
      emit('agents.changed', { agents: state.agents });
      return ok({ agents: state.agents });
    },
    'hardware.status': () => ok(state.hardware),
    'external.open': () => fail('no_user_gesture', 'A link may only be opened right after a click.'),
    'media.arm': ({ kinds }) => ok({ armed: kinds }),
    'media.disarm': () => ok({ armed: [] }),
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
      const result = await (handlers[method] as (request: unknown) => Promise<IpcResult<unknown>> | IpcResult<unknown>)(parsed.data);
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

  return {
    api: buildApi(transport),
    state,
    calls,
    callsOf: <M extends MethodName>(method: M) =>
      calls.filter((entry) => entry.method === method).map((entry) => entry.request as MethodRequest<M>),
    failNext: (method, error) => void failures.set(method, error),
    holdNext: (method) => {
      let release: () => void = () => undefined;
      holds.set(method, new Promise<void>((resolve) => (release = resolve)));
      return () => release();
    },
    emit,
    listenerCount: (event) => listeners.get(eventChannel(event))?.size ?? 0,
    muteEvents: (muted) => void (eventsMuted = muted),
  };
}
