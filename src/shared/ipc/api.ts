import {
  eventChannel,
  eventNames,
  methodChannel,
  methodNames,
  type EventName,
  type EventPayload,
  type MethodName,
  type MethodRequest,
  type MethodResponse,
} from './contract';
import type { IpcResult } from '../base/errors';

/**
 * The renderer's API, derived from the contract: `window.agentdesk.<namespace>.<method>(request)`
 * and `window.agentdesk.<namespace>.on<Event>(listener)`. Nothing here is written by hand per
 * method, so the preload, the web shell and the types cannot drift apart.
 */

type Namespace<N extends string> = N extends `${infer NS}.${string}` ? NS : never;
type Member<N extends string, NS extends string> = N extends `${NS}.${infer F}` ? F : never;

export type Unsubscribe = () => void;

export type MethodFunction<M extends MethodName> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "takes no request" is exactly {} here
  {} extends MethodRequest<M>
    ? (request?: MethodRequest<M>) => Promise<IpcResult<MethodResponse<M>>>
    : (request: MethodRequest<M>) => Promise<IpcResult<MethodResponse<M>>>;

export type EventSubscriber<E extends EventName> = (listener: (payload: EventPayload<E>) => void) => Unsubscribe;

export type AgentDeskApi = {
  readonly [NS in Namespace<MethodName | EventName>]: {
    readonly [M in Extract<MethodName, `${NS}.${string}`> as Member<M, NS>]: MethodFunction<M>;
  } & {
    readonly [E in Extract<EventName, `${NS}.${string}`> as `on${Capitalize<Member<E, NS>>}`]: EventSubscriber<E>;
  };
};

/** How a built API reaches main: Electron's ipcRenderer in the preload, a WebSocket in the web shell. */
export interface ApiTransport {
  /** Resolves with the handler's IpcResult; a broken transport resolves with a `disconnected` failure. */
  invoke(channel: string, request: unknown): Promise<unknown>;
  subscribe(channel: string, listener: (payload: unknown) => void): Unsubscribe;
}

export function splitName(name: string): { namespace: string; member: string } {
  const dot = name.indexOf('.');
  return { namespace: name.slice(0, dot), member: name.slice(dot + 1) };
}

export function subscriberName(event: EventName): string {
  const { member } = splitName(event);
  return `on${member.charAt(0).toUpperCase()}${member.slice(1)}`;
}

export function buildApi(transport: ApiTransport): AgentDeskApi {
  const api: Record<string, Record<string, unknown>> = {};
  const namespaceOf = (name: string) => (api[splitName(name).namespace] ??= {});

  for (const method of methodNames) {
    const channel = methodChannel(method);
    namespaceOf(method)[splitName(method).member] = (request: unknown = {}) => transport.invoke(channel, request);
  }
  for (const event of eventNames) {
    const channel = eventChannel(event);
    namespaceOf(event)[subscriberName(event)] = (listener: unknown) => {
      if (typeof listener !== 'function') throw new TypeError(`${event}: the listener must be a function`);
      return transport.subscribe(channel, (payload) => (listener as (payload: unknown) => void)(payload));
    };
  }
  for (const namespace of Object.values(api)) Object.freeze(namespace);
  return Object.freeze(api) as unknown as AgentDeskApi;
}
