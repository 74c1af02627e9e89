import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import { resolveBargeIn, type BargeInDevice } from '../../../src/renderer/voice/barge-in';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

/**
 * Barge-in is a setting (Settings → Speech): Automatic, On, Off. Automatic's rule (one place,
 * src/renderer/voice/barge-in.ts): on when the default output or the microphone in use is named like
 * headphones or a headset, off otherwise (and while names are hidden). Settings says which way it goes now.
 */

const speakers: BargeInDevice = { kind: 'audiooutput', deviceId: 'default', label: 'Default - Built-in Audio Analog Stereo' };
const headphones: BargeInDevice = { kind: 'audiooutput', deviceId: 'default', label: 'Default - Jabra Evolve2 Headphones' };
const laptopMic: BargeInDevice = { kind: 'audioinput', deviceId: 'default', label: 'Default - Internal Microphone' };
const headsetMic: BargeInDevice = { kind: 'audioinput', deviceId: 'usb-1', label: 'USB Headset Microphone' };

function listDevices(devices: BargeInDevice[]) {
  Object.defineProperty(window.navigator, 'mediaDevices', {
    configurable: true,
    value: {
      getUserMedia: vi.fn(),
      enumerateDevices: vi.fn(async () => devices.map((device) => ({ ...device, groupId: 'g' }))),
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
    },
  });
}

afterEach(() => {
  Reflect.deleteProperty(window.navigator, 'mediaDevices');
  localStorage.clear();
});

describe('barge-in: the rule', () => {
  it('Automatic is on with headphones as the output or a headset as the microphone in use, off with speakers or without names; On and Off are what they say', () => {
    expect(resolveBargeIn('automatic', [headphones, laptopMic])).toEqual({ on: true, setting: 'automatic', headphones: headphones.label });
    expect(resolveBargeIn('automatic', [speakers, laptopMic])).toEqual({ on: false, setting: 'automatic' });
    // A headset plugged in but not the microphone chosen: the sound still comes from the laptop.
    expect(resolveBargeIn('automatic', [speakers, laptopMic, headsetMic]).on).toBe(false);
    expect(resolveBargeIn('automatic', [speakers, laptopMic, headsetMic], 'usb-1')).toEqual({ on: true, setting: 'automatic', headphones: headsetMic.label });
    expect(resolveBargeIn('automatic', [{ kind: 'audiooutput', deviceId: 'default', label: 'Výchozí – Sluchátka' }]).on).toBe(true);
    // Before the microphone was allowed the browser hides the names: off.
    expect(resolveBargeIn('automatic', [{ ...headphones, label: '' }]).on).toBe(false);
    expect(resolveBargeIn('automatic', []).on).toBe(false);
    expect(resolveBargeIn('on', [speakers]).on).toBe(true);
    expect(resolveBargeIn('off', [headphones]).on).toBe(false);
  });
});

describe('Settings → Speech: barge-in', () => {
  it('offers Automatic (the default), On and Off, says which way Automatic goes now, and saves the choice', async () => {
    listDevices([speakers, laptopMic]);
    const backend = createFakeBackend();
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    const speech = await screen.findByRole('group', { name: 'Speech' });
    const choice = within(speech).getByRole('group', { name: 'Interrupt the agent by speaking' });
    expect(within(choice).getByRole<HTMLInputElement>('radio', { name: 'Automatic' }).checked).toBe(true);
    expect(await within(speech).findByText(/^Automatic is off now: no headphones or headset found by name/)).toBeTruthy();
    await user.click(within(choice).getByRole('radio', { name: 'On' }));
    await waitFor(() => expect(backend.callsOf('settings.update')).toEqual([{ patch: { voice: { bargeIn: 'on' } } }]));
    expect(backend.state.settings.voice?.bargeIn).toBe('on');
    expect(within(choice).getByRole<HTMLInputElement>('radio', { name: 'On' }).checked).toBe(true);
  });

  it('with headphones Automatic says it is on and names them; in Czech too', async () => {
    listDevices([headphones, laptopMic]);
    const backend = createFakeBackend();
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    expect(await screen.findByText('Automatic is on now: “Default - Jabra Evolve2 Headphones” sounds like headphones.')).toBeTruthy();
    act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
    const speech = await screen.findByRole('group', { name: 'Řeč' });
    expect(within(speech).getByRole('group', { name: 'Přerušit agenta mluvením' })).toBeTruthy();
    expect(await within(speech).findByText('Automaticky je teď zapnuto: „Default - Jabra Evolve2 Headphones“ vypadá jako sluchátka.')).toBeTruthy();
  });

  it('a device policy that sets it lists it under "Set by the administrator"', async () => {
    const policy: DevicePolicyStatus = {
      state: 'active',
      file: '/etc/agentdesk/policy.json',
      kiosk: false,
      agentsLocked: false,
      forced: ['voice.bargeIn'],
      camera: true,
      voice: true,
      adminPin: false,
    };
    const backend = createFakeBackend({ policy });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    const forced = await screen.findByRole('region', { name: 'Set by the administrator' });
    expect(
      within(forced)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Interrupting the agent by speaking']);
  });
});
