import { describe, expect, it, vi } from 'vitest';
import { eventChannel, eventNames, methodChannel, methodNames } from '../../src/shared/ipc/contract';

const fake = vi.hoisted(() => {
  const exposed = new Map<string, unknown>();
  const invoked: { channel: string; payload: unknown }[] = [];
  const listeners = new Map<string, ((...args: unknown[]) => void)[]>();
  const electron = {
    contextBridge: { exposeInMainWorld: (key: string, value: unknown) => void exposed.set(key, value) },
    ipcRenderer: {
      invoke: async (channel: string, payload: unknown) => {
        invoked.push({ channel, payload });
        return { ok: true, value: null };
      },
      on: (channel: string, listener: (...args: unknown[]) => void) => void listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
      removeListener: (channel: string, listener: unknown) => void listeners.set(channel, (listeners.get(channel) ?? []).filter((l) => l !== listener)),
    },
  };
  return { exposed, invoked, listeners, electron };
});

vi.mock('electron', () => ({ ...fake.electron, default: fake.electron }));
await import('../../src/preload/index');

describe('the preload', () => {
  it('exposes one object, window.agentdesk, and nothing else', () => {
    expect([...fake.exposed.keys()]).toEqual(['agentdesk']);
  });

  it('maps each API function to its own prefixed channel; no generic invoke, send or on', async () => {
    const api = fake.exposed.get('agentdesk') as Record<string, Record<string, (arg?: unknown) => unknown>>;
    for (const method of methodNames) {
      const [namespace, member] = method.split('.') as [string, string];
      await api[namespace]![member]!({});
    }
    expect(fake.invoked.map((call) => call.channel)).toEqual(methodNames.map(methodChannel));
    for (const key of ['invoke', 'send', 'on', 'ipcRenderer', 'removeListener']) expect(api).not.toHaveProperty(key);
  });

  it('subscribes to event channels only through the per-event functions, and unsubscribes', () => {
    const api = fake.exposed.get('agentdesk') as Record<string, Record<string, (listener: unknown) => () => void>>;
    const received: unknown[] = [];
    const off = api.settings!.onChanged!((payload: unknown) => received.push(payload));
    const channel = eventChannel('settings.changed');
    expect(eventNames).toContain('settings.changed');
    fake.listeners.get(channel)![0]!({ sender: 'ipc event' }, { language: 'en' });
    expect(received).toEqual([{ language: 'en' }]);
    off();
    expect(fake.listeners.get(channel)).toEqual([]);
  });
});
