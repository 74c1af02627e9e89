import { useCallback, useEffect, useRef, useState } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';

export type CameraError = 'denied' | 'noCamera' | 'busy' | 'failed' | 'unavailable';

export interface CameraDevice {
  deviceId: string;
  label: string;
}

export type CameraState =
  { status: 'closed'; error?: CameraError } | { status: 'starting' } | { status: 'live'; stream: MediaStream; deviceId: string | undefined };

export interface Camera {
  state: CameraState;
  /** Video inputs; labels are filled in once the camera was allowed. */
  devices: CameraDevice[];
  /** The chosen camera (remembered across openings), or undefined for the system default. */
  deviceId: string | undefined;
  /** Only ever call from a click or key press: this is what asks for permission. */
  open(): Promise<void>;
  /** Stops every track and disarms the camera permission. Safe to call at any time. */
  close(): void;
  selectDevice(deviceId: string): void;
}

/** Where the chosen camera's id is remembered (ids are per origin and mean nothing elsewhere). */
export const cameraStorageKey = 'agentdesk.photo.cameraDeviceId';

function mediaDevices(): MediaDevices | undefined {
  if (typeof navigator === 'undefined') return undefined;
  const devices = (navigator as Navigator & { mediaDevices?: MediaDevices }).mediaDevices;
  return devices && typeof devices.getUserMedia === 'function' ? devices : undefined;
}

function remembered(): string | undefined {
  try {
    return localStorage.getItem(cameraStorageKey) ?? undefined;
  } catch {
    return undefined;
  }
}

function remember(deviceId: string | undefined): void {
  try {
    if (deviceId) localStorage.setItem(cameraStorageKey, deviceId);
    else localStorage.removeItem(cameraStorageKey);
  } catch {
    // Storage blocked: the choice lasts until the window closes.
  }
}

function stopTracks(stream: MediaStream): void {
  for (const track of stream.getTracks()) track.stop();
}

function classify(error: unknown): CameraError {
  const name = error instanceof Error || (typeof error === 'object' && error !== null && 'name' in error) ? String((error as { name: unknown }).name) : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'noCamera';
  if (name === 'NotReadableError' || name === 'AbortError') return 'busy';
  return 'failed';
}

/** getUserMedia for the wanted camera; when that camera is gone, the default one (and say so). */
async function openStream(devices: MediaDevices, wanted: string | undefined): Promise<{ stream: MediaStream; forgotten: boolean }> {
  try {
    return { stream: await devices.getUserMedia({ video: wanted ? { deviceId: { exact: wanted } } : true, audio: false }), forgotten: false };
  } catch (error) {
    if (!wanted || classify(error) !== 'noCamera') throw error;
    return { stream: await devices.getUserMedia({ video: true, audio: false }), forgotten: true };
  }
}

/**
 * The camera, opened only by `open()` (a visible user action): arms the camera permission in main,
 * calls getUserMedia, remembers the chosen device; `close()` (and unmounting) stops every track and
 * disarms. A close during start-up wins: the stream that arrives late is stopped at once.
 */
export function useCamera(media: Pick<AgentDeskApi['media'], 'arm' | 'disarm'>): Camera {
  const [state, setState] = useState<CameraState>({ status: 'closed' });
  const [devices, setDevices] = useState<CameraDevice[]>([]);
  const [deviceId, setDeviceId] = useState<string | undefined>(() => remembered());
  const stream = useRef<MediaStream | undefined>(undefined);
  /** Bumped by every open and close: a start-up that finds it changed was cancelled. */
  const generation = useRef(0);
  const armed = useRef(false);

  const release = useCallback(() => {
    if (stream.current) stopTracks(stream.current);
    stream.current = undefined;
    if (armed.current) {
      armed.current = false;
      void media.disarm({ kinds: ['camera'] });
    }
  }, [media]);

  const close = useCallback(() => {
    generation.current++;
    release();
    setState({ status: 'closed' });
  }, [release]);

  const start = useCallback(
    async (wanted: string | undefined) => {
      const devicesApi = mediaDevices();
      const mine = ++generation.current;
      release();
      if (!devicesApi) return setState({ status: 'closed', error: 'unavailable' });
      setState({ status: 'starting' });
      armed.current = true;
      const arm = await media.arm({ kinds: ['camera'] });
      if (mine !== generation.current) return;
      if (!arm.ok) {
        release();
        return setState({ status: 'closed', error: 'denied' });
      }
      let opened: { stream: MediaStream; forgotten: boolean };
      try {
        opened = await openStream(devicesApi, wanted);
      } catch (error) {
        if (mine !== generation.current) return;
        release();
        return setState({ status: 'closed', error: classify(error) });
      }
      if (mine !== generation.current) {
        stopTracks(opened.stream);
        return;
      }
      stream.current = opened.stream;
      const active = opened.stream.getVideoTracks()[0]?.getSettings().deviceId;
      if (opened.forgotten) {
        remember(undefined);
        setDeviceId(undefined);
      } else if (wanted) remember(wanted);
      setState({ status: 'live', stream: opened.stream, deviceId: active });
      try {
        const list = await devicesApi.enumerateDevices();
        if (mine === generation.current) {
          setDevices(list.filter((device) => device.kind === 'videoinput').map((device) => ({ deviceId: device.deviceId, label: device.label })));
        }
      } catch {
        // The picker just stays as it was.
      }
    },
    [media, release],
  );

  const open = useCallback(() => start(deviceId), [start, deviceId]);

  const selectDevice = useCallback(
    (id: string) => {
      remember(id);
      setDeviceId(id);
      if (stream.current) void start(id);
    },
    [start],
  );

  useEffect(
    () => () => {
      generation.current++;
      release();
    },
    [release],
  );

  return { state, devices, deviceId, open, close, selectDevice };
}
