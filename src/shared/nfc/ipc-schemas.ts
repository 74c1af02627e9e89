import { z } from 'zod';
import { localTagCarrier, maxReferenceChars, portableTagCarrier, unverifiedTagAssurance } from './object-ref';

/**
 * What crosses from main to the renderer (and the CLI prints) about NFC: reader status and scan
 * results. A scan result carries the observation object only; the tag's hardware ID never appears.
 */

/** The `object` of an AgentCall 0.1 `user.observation`, exactly the four fields the spec names. */
export const nfcObjectSchema = z.strictObject({
  objectRef: z.string().min(1).max(maxReferenceChars),
  carrier: z.enum([localTagCarrier, portableTagCarrier]),
  assurance: z.literal(unverifiedTagAssurance),
  payloadSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type NfcObject = z.infer<typeof nfcObjectSchema>;

/** What `agentdesk scan` prints: the object plus the reader it came from. */
export const nfcObservationSchema = nfcObjectSchema.extend({ reader: z.string().max(200) });
export type NfcObservation = z.infer<typeof nfcObservationSchema>;

export const nfcFailureReasonSchema = z.enum(['removed', 'unsupported', 'readError', 'noDeviceKey', 'unavailable']);
export type NfcFailureReason = z.infer<typeof nfcFailureReasonSchema>;

const scanId = z.string().min(1).max(64);

/**
 * Scan results. A scan ends with exactly one observation, timeout, cancelled, or failed with
 * `retry: false`; a failed read with `retry: true` (tag lifted, unsupported card) leaves it armed.
 * In kiosk mode every tap yields an observation and the scan stays armed.
 */
export const nfcScanResultSchema = z.discriminatedUnion('outcome', [
  z.strictObject({
    scanId,
    outcome: z.literal('observation'),
    object: nfcObjectSchema,
    reader: z.string().max(200),
    /** Why a portable reference was not used (malformed NDEF, a link that is not a reference); never tag content. */
    note: z.string().max(500).optional(),
  }),
  z.strictObject({ scanId, outcome: z.literal('failed'), reason: nfcFailureReasonSchema, message: z.string().max(500), retry: z.boolean() }),
  z.strictObject({ scanId, outcome: z.literal('timeout') }),
  z.strictObject({ scanId, outcome: z.literal('cancelled') }),
]);
export type NfcScanResult = z.infer<typeof nfcScanResultSchema>;

/**
 * Reader status for the hardware strip and the scan control. A compatible superset of the
 * contract's current nfcStatusSchema (state, readers[].name/connected, detail), so it can replace it.
 */
export const nfcStatusSchema = z.strictObject({
  /** `ready`: the reader service runs and the smart-card service answers; `unavailable`: see `service` and `detail`. */
  state: z.enum(['unavailable', 'ready']),
  /** Readers seen since start; `connected: false` for one that was unplugged. */
  readers: z.array(z.strictObject({ name: z.string().max(200), connected: z.boolean(), cardPresent: z.boolean().optional() })).max(16),
  /** Why NFC is unavailable, in a sentence. */
  detail: z.string().max(500).optional(),
  /**
   * starting: the reader process is starting; running: it runs and PC/SC answers; missing: the smart-card
   * service is not installed or not running (see `fix`); restarting: the reader process crashed and is
   * restarted after a pause; failed: it cannot run here (see `detail`).
   */
  service: z.enum(['starting', 'running', 'missing', 'restarting', 'failed']).optional(),
  /** The exact fix for this platform when the smart-card service is missing (packages and service command). */
  fix: z.string().max(500).optional(),
  lastError: z.strictObject({ message: z.string().max(500), at: z.string().max(40) }).optional(),
  scan: z
    .strictObject({
      armed: z.boolean(),
      scanId: scanId.optional(),
      /** When the armed scan times out (ISO 8601). Absent in kiosk mode. */
      expiresAt: z.string().max(40).optional(),
      kiosk: z.boolean(),
    })
    .optional(),
});
export type NfcStatus = z.infer<typeof nfcStatusSchema>;

/** Bounds for `nfc.arm`'s timeout. */
export const nfcArmTimeoutMs = { min: 1_000, max: 120_000, default: 30_000 } as const;

export const nfcArmRequestSchema = z.strictObject({ timeoutMs: z.number().int().min(nfcArmTimeoutMs.min).max(nfcArmTimeoutMs.max).optional() });
export const nfcArmResponseSchema = z.strictObject({ scanId, expiresAt: z.string().max(40) });
export const nfcCancelRequestSchema = z.strictObject({ scanId: scanId.optional() });
export const nfcCancelResponseSchema = z.strictObject({ cancelled: z.boolean() });
/** Kiosk policy: the renderer reports whether its window is focused and the scan indicator visible. */
export const nfcKioskRequestSchema = z.strictObject({ active: z.boolean() });
export const nfcKioskResponseSchema = z.strictObject({ armed: z.boolean() });

/** NFC settings (proposed for settings.ts under `nfc`). */
export const nfcSettingsSchema = z.strictObject({
  /** The same tag is ignored for this long after it was read (ms). */
  debounceMs: z.number().int().min(0).max(10_000),
  /** Kiosk policy: keep scanning armed while the window is focused and the scan indicator is visible. */
  kioskScan: z.boolean(),
  /** LED and buzzer feedback on ACR122U/ACR1252U readers. */
  readerFeedback: z.boolean(),
});
export type NfcSettings = z.infer<typeof nfcSettingsSchema>;
export const defaultNfcSettings: NfcSettings = { debounceMs: 2_000, kioskScan: false, readerFeedback: false };
