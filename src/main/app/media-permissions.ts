import type { MediaKind } from '../../shared/ipc/contract';
import { ServiceError } from '../../shared/base/errors';

/**
 * Camera and microphone are granted only while the UI has asked for them: the renderer arms a
 * kind right before it opens the preview or a call and disarms it when that closes. The Electron
 * permission handler asks `allows()` for every request and check.
 */
export class MediaPermissions {
  private readonly armed = new Set<MediaKind>();

  /** `refused`: kinds the device policy does not allow, with the reason; arming one fails with `not_allowed`, so it is never granted. */
  constructor(private readonly refused: Partial<Record<MediaKind, string>> = {}) {}

  arm(kinds: readonly MediaKind[]): MediaKind[] {
    const refusal = kinds.map((kind) => this.refused[kind]).find((reason) => reason !== undefined);
    if (refusal !== undefined) throw new ServiceError('not_allowed', refusal);
    for (const kind of kinds) this.armed.add(kind);
    return this.list();
  }

  disarm(kinds: readonly MediaKind[]): MediaKind[] {
    for (const kind of kinds) this.armed.delete(kind);
    return this.list();
  }

  /** True only when every requested kind is armed (a request for both needs both). */
  allows(kinds: readonly MediaKind[]): boolean {
    return kinds.length > 0 && kinds.every((kind) => this.armed.has(kind));
  }

  list(): MediaKind[] {
    return [...this.armed].sort();
  }

  /** For the diagnostics bundle: whether the policy allows each kind and whether it is armed now. */
  state(): Record<MediaKind, { allowedByPolicy: boolean; armed: boolean }> {
    const of = (kind: MediaKind) => ({ allowedByPolicy: this.refused[kind] === undefined, armed: this.armed.has(kind) });
    return { camera: of('camera'), microphone: of('microphone') };
  }
}
