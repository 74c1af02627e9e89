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
      removeListener: (channel: string, listener: unknown) =>
        void listeners.set(
          channel,
          (listeners.get(channel) ?? []).filter((l) => l !== listener),
        ),
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

  it('hands bytes to ipcRenderer as the same Uint8Array (structured clone does the rest), in calls and events: nothing goes through JSON', async () => {
    const api = fake.exposed.get('agentdesk') as Record<string, Record<string, (arg?: unknown) => unknown>>;
    const rgba = Uint8Array.of(1, 2, 3, 4);
    await api.photo!.stage!({ kind: 'frame', width: 1, height: 1, rgba });
    const call = fake.invoked.at(-1)!;
    expect(call.channel).toBe(methodChannel('photo.stage'));
    expect((call.payload as { rgba: unknown }).rgba).toBe(rgba);
    const received: unknown[] = [];
    const off = (api.settings!.onChanged as (listener: unknown) => () => void)((payload: unknown) => received.push(payload));
    const audio = { chunk: Uint8Array.of(9, 9) };
    fake.listeners.get(eventChannel('settings.changed'))!.at(-1)!({ sender: 'ipc event' }, audio);
    expect(received[0]).toBe(audio);
    off();
  });
});
