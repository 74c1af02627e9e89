/**
 * Native wrappers that must outlive their use. node-datachannel's threads may still call into a
 * closed peer connection's, track's or channel's JavaScript wrapper, and `ndc.cleanup()` after such a
 * wrapper was garbage-collected crashes the process (measured here: a test worker exited without a
 * word, 4 runs in 5). Whoever closes one hands it here; it is kept until the process ends.
 */
const kept: unknown[] = [];

export function keepUntilExit(...objects: unknown[]): void {
  kept.push(...objects);
}
