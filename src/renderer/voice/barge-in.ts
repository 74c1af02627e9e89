import { useEffect, useState } from 'react';
import type { BargeInSetting } from '../../shared/settings/settings';
import { mediaDevices } from './call-media';
import { microphoneStorageKey, remembered } from './microphone-choice';

/**
 * Barge-in (client-owned voice): whether speech while the agent speaks stops it. The one rule, used
 * by the AgentCall screen (what listening does) and by Settings → Speech (what Automatic means now).
 *
 * Automatic is on when the page's sound goes to headphones or comes from a headset, judged by the
 * device names the browser lists (`enumerateDevices`): the output the page plays to (the system's
 * default output, the entry with id "default", else the first) or the microphone listening uses (the
 * one chosen on the call bar, else the default input) has a name with headphones, headset, earbuds,
 * earphones, AirPods or the Czech "sluchátka". Otherwise it is off — also while the names are not known
 * (browsers hide them until a microphone was first allowed) — because an agent that hears its own voice
 * from the speakers interrupts itself.
 */

export const headphonesPattern = /head(set|phone)|earbud|earphone|airpods|sluchátk/i;

export interface BargeInDevice {
  kind: string;
  deviceId: string;
  label: string;
}

export interface BargeInState {
  /** What listening does now. */
  on: boolean;
  setting: BargeInSetting;
  /** Automatic: the device whose name says headphones (when on). */
  headphones?: string;
}

function inUse(devices: readonly BargeInDevice[], kind: string, chosen: string | undefined): BargeInDevice | undefined {
  const ofKind = devices.filter((device) => device.kind === kind);
  return ofKind.find((device) => chosen !== undefined && device.deviceId === chosen) ?? ofKind.find((device) => device.deviceId === 'default') ?? ofKind[0];
}

/** The rule, pure: the setting and the devices the browser lists (with the chosen microphone's id). */
export function resolveBargeIn(setting: BargeInSetting, devices: readonly BargeInDevice[], microphoneId?: string): BargeInState {
  if (setting !== 'automatic') return { on: setting === 'on', setting };
  const heard = [inUse(devices, 'audiooutput', undefined), inUse(devices, 'audioinput', microphoneId)].find(
    (device) => device !== undefined && headphonesPattern.test(device.label),
  );
  return heard ? { on: true, setting, headphones: heard.label } : { on: false, setting };
}

/** The rule applied to this page's devices, followed as they change (`devicechange`, or `refreshKey`: labels appear once the microphone was allowed). */
export function useBargeIn(setting: BargeInSetting, refreshKey?: unknown): BargeInState {
  const [devices, setDevices] = useState<BargeInDevice[]>([]);
  useEffect(() => {
    const media = mediaDevices();
    if (!media || typeof media.enumerateDevices !== 'function') return undefined;
    let active = true;
    const refresh = () => {
      media.enumerateDevices().then(
        (list) => {
          if (active) setDevices(list.map((device) => ({ kind: device.kind, deviceId: device.deviceId, label: device.label })));
        },
        () => undefined,
      );
    };
    refresh();
    media.addEventListener?.('devicechange', refresh);
    return () => {
      active = false;
      media.removeEventListener?.('devicechange', refresh);
    };
  }, [refreshKey]);
  return resolveBargeIn(setting, devices, remembered(microphoneStorageKey));
}
