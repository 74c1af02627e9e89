import { useEffect, useState } from 'react';

export interface MediaDeviceChoice {
  deviceId: string;
  label: string;
}

export type MediaDevicesState =
  | { status: 'loading' }
  | { status: 'unavailable' }
  /** Labels are empty until the user has allowed the camera or microphone once. */
  | {
      status: 'ready';
      cameras: string[];
      microphones: string[];
      /** Microphones to choose from (ids are per origin). */ microphoneDevices: MediaDeviceChoice[];
    };

function mediaDevices(): MediaDevices | undefined {
  if (typeof navigator === 'undefined') return undefined;
  // navigator.mediaDevices is undefined outside a secure context (and in jsdom).
  const devices = (navigator as Navigator & { mediaDevices?: MediaDevices }).mediaDevices;
  return devices && typeof devices.enumerateDevices === 'function' ? devices : undefined;
}

/**
 * Counts cameras and microphones with enumerateDevices() and follows `devicechange`. It never
 * calls getUserMedia: no permission prompt appears without a visible user action. A change of
 * `refreshKey` lists them again (labels appear once a microphone or camera was allowed).
 */
export function useMediaDevices(refreshKey?: unknown): MediaDevicesState {
  const [state, setState] = useState<MediaDevicesState>(() => (mediaDevices() ? { status: 'loading' } : { status: 'unavailable' }));

  useEffect(() => {
    const devices = mediaDevices();
    if (!devices) return undefined;
    let active = true;
    const refresh = () => {
      devices.enumerateDevices().then(
        (list) => {
          if (!active) return;
          setState({
            status: 'ready',
            cameras: list.filter((device) => device.kind === 'videoinput').map((device) => device.label),
            microphones: list.filter((device) => device.kind === 'audioinput').map((device) => device.label),
            microphoneDevices: list.filter((device) => device.kind === 'audioinput').map((device) => ({ deviceId: device.deviceId, label: device.label })),
          });
        },
        () => {
          if (active) setState({ status: 'unavailable' });
        },
      );
    };
    refresh();
    devices.addEventListener('devicechange', refresh);
    return () => {
      active = false;
      devices.removeEventListener('devicechange', refresh);
    };
  }, [refreshKey]);

  return state;
}
