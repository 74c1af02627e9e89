import { useEffect, useState } from 'react';

export type MediaDevicesState =
  | { status: 'loading' }
  | { status: 'unavailable' }
  /** Labels are empty until the user has allowed the camera or microphone once. */
  | { status: 'ready'; cameras: string[]; microphones: string[] };

function mediaDevices(): MediaDevices | undefined {
  if (typeof navigator === 'undefined') return undefined;
  // navigator.mediaDevices is undefined outside a secure context (and in jsdom).
  const devices = (navigator as Navigator & { mediaDevices?: MediaDevices }).mediaDevices;
  return devices && typeof devices.enumerateDevices === 'function' ? devices : undefined;
}

/**
 * Counts cameras and microphones with enumerateDevices() and follows `devicechange`. It never
 * calls getUserMedia: no permission prompt appears without a visible user action.
 */
export function useMediaDevices(): MediaDevicesState {
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
  }, []);

  return state;
}
