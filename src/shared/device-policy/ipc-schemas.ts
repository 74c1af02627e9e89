import { z } from 'zod';
import { adminPinLength } from './admin-pin-hash';

/**
 * What the renderer learns about the device policy (`policy.status`) and the admin PIN
 * (`policy.unlockAdmin`). The policy itself stays in main; the page gets what it shows.
 */
export const forcedSettingKeySchema = z.enum([
  'language',
  'appearance.theme',
  'appearance.textSize',
  'developer.allowLocalHttp',
  'developer.allowPastedTokens',
  'nfc.kioskScan',
  'voice.bargeIn',
]);

export const devicePolicyStatusSchema = z.discriminatedUnion('state', [
  /** No policy: an unmanaged machine (`kiosk`: started with `--kiosk` all the same). */
  z.strictObject({ state: z.literal('none'), kiosk: z.boolean().optional() }),
  z.strictObject({
    state: z.literal('active'),
    /** The policy file. */
    file: z.string().max(4096),
    /** Kiosk mode: `"kiosk": true` in the policy, or `--kiosk`. */
    kiosk: z.boolean(),
    /** The agent list is the policy's: no add, remove, rename, other address or built-in demo. */
    agentsLocked: z.boolean(),
    /** The agent to open at start (its id in agents.list). */
    startAgentId: z.string().min(1).max(64).optional(),
    /** The settings the policy sets (Settings shows them as set by the administrator). */
    forced: z.array(forcedSettingKeySchema).max(7),
    camera: z.boolean(),
    /** Photos from files ("Choose a picture…", the system's file dialog; a dropped picture): `camera.filePicker`, default off in kiosk mode. False: the control is absent and main refuses a file's photo (main always says; absent reads as the default). */
    filePicker: z.boolean().optional(),
    voice: z.boolean(),
    /** Settings changes need the admin PIN (`policy.unlockAdmin`). */
    adminPin: z.boolean(),
    /** Kiosk mode: seconds without input before the countdown to a reset (`kiosk.reset`). */
    idleResetSeconds: z.number().int().min(10).max(86_400).optional(),
    /** Kiosk mode: how long the agent's own activity (its voice, a running answer) may hold the countdown off past `idleResetSeconds`. */
    idleAgentHoldSeconds: z.number().int().min(0).max(3_600).optional(),
    /** The voice mode calls must use (the other is not offered). */
    voiceMode: z.enum(['hands-free', 'push-to-talk']).optional(),
  }),
  /** The policy cannot be used (kiosk mode: the app runs nothing else and shows this). */
  z.strictObject({ state: z.literal('failed'), file: z.string().max(4096), message: z.string().max(2000) }),
]);
export type DevicePolicyStatus = z.infer<typeof devicePolicyStatusSchema>;

export const adminUnlockRequestSchema = z.strictObject({ pin: z.string().min(1).max(adminPinLength.max) });
export const adminUnlockResponseSchema = z.discriminatedUnion('unlocked', [
  /** Until when settings changes are allowed without the PIN again (ISO 8601). */
  z.strictObject({ unlocked: z.literal(true), until: z.string().max(40) }),
  z.strictObject({
    unlocked: z.literal(false),
    reason: z.enum(['wrong', 'locked', 'no_pin']),
    retryAfterSeconds: z.number().int().min(0).max(86_400),
    freeTriesLeft: z.number().int().min(0).max(100),
  }),
]);
export type AdminUnlockResponse = z.infer<typeof adminUnlockResponseSchema>;

/**
 * `diagnostics.save` (Settings → Save diagnostics…): main writes the diagnostics bundle (one JSON
 * file, src/main/app/diagnostics.ts) where the user chose; `saved: false` when they cancelled.
 */
export const diagnosticsSaveResponseSchema = z.discriminatedUnion('saved', [
  z.strictObject({ saved: z.literal(true), file: z.string().max(4096), bytes: z.number().int().positive() }),
  z.strictObject({ saved: z.literal(false) }),
]);
export type DiagnosticsSaveResponse = z.infer<typeof diagnosticsSaveResponseSchema>;

/** What `kiosk.reset` ended and wiped (kiosk mode only). */
export const kioskResetResponseSchema = z.strictObject({
  /** AgentCall sessions, voice calls, Talkie and AG-UI runs ended or cancelled. */
  ended: z.number().int().min(0).max(10_000),
  /** Staged photos dropped from memory. */
  discardedPhotos: z.number().int().min(0).max(10_000),
  /** Files main had written for the session (AG-UI threads) that were deleted. */
  removedFiles: z.number().int().min(0).max(100_000),
});
export type KioskResetResponse = z.infer<typeof kioskResetResponseSchema>;

/** The start screen's tag: the kiosk tap main holds (its scan id and reference), for the start agent's new session. */
export const kioskStartTagRequestSchema = z.strictObject({
  sessionKey: z.string().min(1).max(64),
  scanId: z.string().min(1).max(64),
  objectRef: z.string().min(1).max(512),
});
