/**
 * Whether a command loaded node-datachannel (the voice conformance checks, an AgentCall WebRTC card's
 * conformance or chat). Its threads keep the process alive until `ndc.cleanup()`, which must run once,
 * after every peer is closed, by the process's owner (the CLI's main, after the command), never by the
 * command itself. node-datachannel is imported only where it is used (voice-peer.ts), loaded lazily.
 */
let loaded = false;

export function markWebRtcLoaded(): void {
  loaded = true;
}

/** Frees node-datachannel's threads if a command used it, so the process can exit. */
export async function releaseWebRtcIfLoaded(): Promise<void> {
  if (!loaded) return;
  loaded = false;
  (await import('./voice-peer')).releaseWebRtc();
}
