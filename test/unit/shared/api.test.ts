import { describe, expect, expectTypeOf, it } from 'vitest';
import { buildApi, type AgentDeskApi, type ApiTransport } from '../../../src/shared/ipc/api';
import { eventNames, methodNames, type EventPayload, type MethodResponse } from '../../../src/shared/ipc/contract';
import type { IpcResult } from '../../../src/shared/base/errors';

function recordingTransport() {
  const calls: { channel: string; request: unknown }[] = [];
  const listeners = new Map<string, (payload: unknown) => void>();
  const transport: ApiTransport = {
    invoke: async (channel, request) => {
      calls.push({ channel, request });
      return { ok: true, value: { echoed: channel } };
    },
    subscribe: (channel, listener) => {
      listeners.set(channel, listener);
      return () => listeners.delete(channel);
    },
  };
  return { transport, calls, listeners };
}

describe('buildApi', () => {
  it('exposes exactly one function per contract method and one subscriber per event, nothing generic', () => {
    const api = buildApi(recordingTransport().transport) as unknown as Record<string, Record<string, unknown>>;
    const members = Object.entries(api).flatMap(([namespace, fns]) => Object.keys(fns).map((fn) => `${namespace}.${fn}`));
    const expected = [
      ...methodNames,
      ...eventNames.map((event) => {
        const [namespace, member] = event.split('.') as [string, string];
        return `${namespace}.on${member[0]!.toUpperCase()}${member.slice(1)}`;
      }),
    ];
    expect(members.sort()).toEqual(expected.sort());
    for (const forbidden of ['invoke', 'send', 'on', 'ipcRenderer']) expect(api).not.toHaveProperty(forbidden);
    for (const fns of Object.values(api)) for (const fn of Object.values(fns)) expect(typeof fn).toBe('function');
  });

  it('is frozen, so a page script cannot swap a function', () => {
    const api = buildApi(recordingTransport().transport);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.settings)).toBe(true);
  });

  it('sends each call on its own channel, with {} when a method takes no request', async () => {
    const { transport, calls } = recordingTransport();
    const api = buildApi(transport);
    await api.settings.get();
    await api.agents.add({ address: 'crm.example.com' });
    expect(calls).toEqual([
      { channel: 'agentdesk:settings.get', request: {} },
      { channel: 'agentdesk:agents.add', request: { address: 'crm.example.com' } },
    ]);
  });

  it('subscribes per event channel and unsubscribes', () => {
    const { transport, listeners } = recordingTransport();
    const api = buildApi(transport);
    const seen: unknown[] = [];
    const off = api.agents.onChanged((payload) => seen.push(payload));
    listeners.get('agentdesk:event:agents.changed')?.({ agents: [] });
    expect(seen).toEqual([{ agents: [] }]);
    off();
    expect(listeners.has('agentdesk:event:agents.changed')).toBe(false);
    expect(() => (api.agents.onChanged as (listener: unknown) => void)('not a function')).toThrow(/listener must be a function/);
  });

  it('derives its types from the contract (no hand-kept duplicate)', () => {
    expectTypeOf<ReturnType<AgentDeskApi['settings']['get']>>().toEqualTypeOf<Promise<IpcResult<MethodResponse<'settings.get'>>>>();
    expectTypeOf<Parameters<AgentDeskApi['agents']['add']>[0]>().toEqualTypeOf<{ address: string; kind?: 'auto' | 'agui' | undefined }>();
    expectTypeOf<Parameters<Parameters<AgentDeskApi['settings']['onChanged']>[0]>[0]>().toEqualTypeOf<EventPayload<'settings.changed'>>();
    const api = buildApi(recordingTransport().transport);
    // The typecheck (npm run typecheck) fails if any of these stop being errors.
    // @ts-expect-error a method the contract does not declare
    void api.settings.delete;
    // @ts-expect-error a request of the wrong shape
    void api.agents.add({ url: 'x' });
    // @ts-expect-error a required request missing
    void api.agents.remove();
  });
});
