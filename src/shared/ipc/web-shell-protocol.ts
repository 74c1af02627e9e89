import { z } from 'zod';

/**
 * The web shell's frames: the page's generated API on one side, main's dispatcher on the other.
 * The socket is authenticated at the upgrade (the session cookie from the launch code exchange).
 * Page → shell: `call`s. Shell → page: `ready` (first), `result` (per call id) and `event`s.
 */
export const pageFrameSchema = z.discriminatedUnion('t', [
  /**
   * `activation`: the page had transient user activation (`navigator.userActivation.isActive`,
   * a click or key press in the last moments) when it made this call. Main accepts it as the
   * user's gesture for this one call only, for the methods the contract marks `gesture`.
   */
  z.strictObject({ t: z.literal('call'), id: z.number().int().nonnegative(), channel: z.string().max(200), payload: z.unknown(), activation: z.boolean().optional() }),
]);

export type PageFrame = z.infer<typeof pageFrameSchema>;

/** Close codes the shell uses, and what the page shows for each. */
export const webShellCloseCodes = {
  /** A newer page of the same session took over (a reload, a second tab). */
  replaced: 4409,
  /** A frame that is not JSON text of the protocol above. */
  badFrame: 4400,
  /** The shell is shutting down. */
  goingAway: 1001,
} as const;

export const webShellIpcPath = '/ipc';
/** 34 MiB: one `photo.stage` call carries up to 32 MiB of base64 (24 MiB of image bytes) plus its JSON. */
export const maxPageFrameBytes = 34 * 1024 * 1024;
