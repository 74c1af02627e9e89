/**
 * The renderer's WebRTC call plumbing, shared by Talkie voice calls (conversation/protocols/talkie/voice/useVoiceCall.ts)
 * and AgentCall calls (screens/agentcall/agentcall-call.ts): the microphone with echo cancellation,
 * what a refusal means, and waiting for ICE gathering.
 */

export type MicrophoneProblem = 'denied' | 'noMicrophone' | 'busy' | 'unavailable' | 'failed';

export function mediaDevices(): MediaDevices | undefined {
  if (typeof navigator === 'undefined') return undefined;
  const devices = (navigator as Navigator & { mediaDevices?: MediaDevices }).mediaDevices;
  return devices && typeof devices.getUserMedia === 'function' ? devices : undefined;
}

export class MicrophoneError extends Error {
  constructor(readonly problem: MicrophoneProblem) {
    super(problem);
  }
}

export function classify(error: unknown): MicrophoneProblem {
  if (error instanceof MicrophoneError) return error.problem;
  const name = typeof error === 'object' && error !== null && 'name' in error ? String((error as { name: unknown }).name) : '';
  if (name === 'NotAllowedError' || name === 'SecurityError') return 'denied';
  if (name === 'NotFoundError' || name === 'OverconstrainedError') return 'noMicrophone';
  if (name === 'NotReadableError' || name === 'AbortError') return 'busy';
  return 'failed';
}

/** The microphone with the browser's echo cancellation (the provider's voice must not come back), noise suppression and gain control. */
export async function openMicrophone(devices: MediaDevices, wanted: string | undefined): Promise<{ stream: MediaStream; forgotten: boolean }> {
  const audio = (deviceId?: string): MediaTrackConstraints => ({
    ...(deviceId ? { deviceId: { exact: deviceId } } : {}),
    echoCancellation: true,
    noiseSuppression: true,
    autoGainControl: true,
  });
  try {
    return { stream: await devices.getUserMedia({ audio: audio(wanted), video: false }), forgotten: false };
  } catch (error) {
    if (!wanted || classify(error) !== 'noMicrophone') throw error;
    // The remembered microphone is gone: the default one.
    return { stream: await devices.getUserMedia({ audio: audio(), video: false }), forgotten: true };
  }
}

/** Resolves when ICE gathering is complete (a null candidate or the state), or after `ms` with what it has. */
export function iceGathered(pc: RTCPeerConnection, ms: number): Promise<void> {
  if (pc.iceGatheringState === 'complete') return Promise.resolve();
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      pc.removeEventListener('icegatheringstatechange', onState);
      pc.removeEventListener('icecandidate', onCandidate);
      resolve();
    };
    const onState = () => {
      if (pc.iceGatheringState === 'complete') finish();
    };
    const onCandidate = (event: RTCPeerConnectionIceEvent) => {
      if (!event.candidate) finish();
    };
    const timer = setTimeout(finish, ms);
    pc.addEventListener('icegatheringstatechange', onState);
    pc.addEventListener('icecandidate', onCandidate);
  });
}

export function stopTracks(stream: MediaStream | undefined): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}
