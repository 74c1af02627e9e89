import { z } from 'zod';
import { nfcObjectSchema } from '../nfc/ipc-schemas';

/**
 * The AgentCall AG-UI extension 0.1 wire messages (`agentcall-agui-ws-0.1`), client → agent and
 * agent → client, as zod schemas. Used by the client's session engine (src/shared/agentcall/session.ts),
 * the built-in demo agent and the CLI, so all three read the same bytes the same way.
 *
 * The spec's prose names the messages and their fields; the published JSON schemas are not
 * available offline, so where the prose is silent the choices are AgentDesk's and are marked
 * "binding choice" below (and listed in docs/protocols.md#binding-choices).
 */

export const extensionUri = 'https://agentcall.smartycode.com/ext/agentcall-agui/0.1';
export const legacyExtensionUri = 'https://agentcall.invalid/ext/agentcall-agui/0.1';
export const schemaVersion = '0.1';
export const websocketBinding = 'agentcall-agui-ws-0.1';
export const webrtcProfile = 'agentcall-webrtc-0.1';

/** Each UTF-8 JSON frame is at most 128 KiB, checked before parsing. */
export const maxFrameBytes = 128 * 1024;
/** Cards are at most 256 KiB. */
export const maxCardBytes = 256 * 1024;

export const modalitySchema = z.enum(['nfc', 'photo']);
export type Modality = z.infer<typeof modalitySchema>;

/** Client-side bounds (binding choices where the spec says only "bounded"). */
export const limits = {
  sessionIdChars: 128,
  textChars: 8_000,
  contextEntries: 16,
  contextDescriptionChars: 200,
  contextValueChars: 1_000,
  observationIdChars: 128,
  interactionIdChars: 128,
  imageBytes: 61_440,
  imageSide: 1_024,
  /** Display bounds for agent text the client shows. */
  failureCodeChars: 64,
  failureMessageChars: 500,
  promptChars: 500,
  labelChars: 256,
} as const;

/** An id of `A-Za-z0-9._:~-`, 1 to `max` characters (sessions, observations, interactions, proposals, recipes). */
export const boundedId = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9._:~-]+$/, 'letters, digits and . _ : ~ - only');
const positiveInt = z.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

/** RFC 3339 date-time with an explicit offset (Z or ±hh:mm). */
export const rfc3339Schema = z.iso.datetime({ offset: true });

export const contextEntrySchema = z.strictObject({
  description: z.string().max(limits.contextDescriptionChars),
  value: z.string().max(limits.contextValueChars),
});
export type ContextEntry = z.infer<typeof contextEntrySchema>;

/** Strict base64 (canonical padding), no whitespace. */
export const strictBase64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The `image` of an observation. Binding choice: the JPEG is `data` (strict base64) with
 * `mediaType: "image/jpeg"` beside the four derived fields the spec names.
 */
export const observationImageSchema = z.strictObject({
  mediaType: z.literal('image/jpeg'),
  data: z
    .string()
    .min(4)
    .max(Math.ceil(limits.imageBytes / 3) * 4)
    .regex(strictBase64Pattern, 'strict base64'),
  byteCount: z.number().int().min(1).max(limits.imageBytes),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  pixelWidth: z.number().int().min(1).max(limits.imageSide),
  pixelHeight: z.number().int().min(1).max(limits.imageSide),
});
export type ObservationImage = z.infer<typeof observationImageSchema>;

export const intentSchema = z.enum(['identify', 'remember', 'inspect', 'act']);
export type Intent = z.infer<typeof intentSchema>;

export const observationSchema = z
  .strictObject({
    schemaVersion: z.literal(schemaVersion),
    observationId: boundedId(limits.observationIdChars),
    capturedAt: rfc3339Schema,
    intent: intentSchema,
    object: nfcObjectSchema.optional(),
    image: observationImageSchema.optional(),
  })
  .refine((observation) => observation.object !== undefined || observation.image !== undefined, {
    message: 'an observation needs an object or an image',
    path: ['object'],
  });
export type Observation = z.infer<typeof observationSchema>;

/** The modalities an observation needs: an object needs nfc, an image photo, both need both. */
export function observationModalities(observation: Pick<Observation, 'object' | 'image'>): Modality[] {
  const needed: Modality[] = [];
  if (observation.object) needed.push('nfc');
  if (observation.image) needed.push('photo');
  return needed;
}

const modalityList = z
  .array(modalitySchema)
  .max(2)
  .refine((list) => new Set(list).size === list.length, 'modalities must be unique');

export const sessionStartSchema = z.strictObject({
  type: z.literal('session.start'),
  sessionId: boundedId(limits.sessionIdChars),
  clientCapabilities: z
    .strictObject({
      physicalObservations: z.strictObject({ modalities: modalityList }).optional(),
      /** agentcall-webrtc-0.1 only, and only when the card says supportsExplicitTurns. */
      audioTurnControl: z.strictObject({ mode: z.literal('explicit') }).optional(),
    })
    .optional(),
});
export const ackSchema = z.strictObject({ type: z.literal('ack'), sequence: positiveInt });
export const userTurnSchema = z.strictObject({
  type: z.literal('user.turn'),
  turn: positiveInt,
  text: z.string().min(1).max(limits.textChars),
  context: z.array(contextEntrySchema).max(limits.contextEntries).optional(),
});
/** Binding choice: the answered request's `interactionId` sits beside `observation`, at the message's top level. */
export const userObservationSchema = z.strictObject({
  type: z.literal('user.observation'),
  turn: positiveInt,
  interactionId: boundedId(limits.interactionIdChars).optional(),
  observation: observationSchema,
  context: z.array(contextEntrySchema).max(limits.contextEntries).optional(),
});
/**
 * Explicit audio turns (agentcall-webrtc-0.1 with `supportsExplicitTurns`): the audio itself travels
 * as RTP; these mark its turn. start, then commit or cancel, carry the same integer turn id, which
 * comes from the counter `user.turn` and `user.observation` share. One audio turn is open at a time,
 * and the client stops its microphone before commit/cancel.
 */
export const audioTurnStartSchema = z.strictObject({ type: z.literal('audio.turn.start'), turn: positiveInt });
export const audioTurnCommitSchema = z.strictObject({ type: z.literal('audio.turn.commit'), turn: positiveInt });
export const audioTurnCancelSchema = z.strictObject({ type: z.literal('audio.turn.cancel'), turn: positiveInt });
export const responseCancelSchema = z.strictObject({ type: z.literal('response.cancel') });
export const sessionEndSchema = z.strictObject({ type: z.literal('session.end') });

export const clientMessageSchema = z.discriminatedUnion('type', [
  sessionStartSchema,
  ackSchema,
  userTurnSchema,
  userObservationSchema,
  responseCancelSchema,
  sessionEndSchema,
  audioTurnStartSchema,
  audioTurnCommitSchema,
  audioTurnCancelSchema,
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;
export type SessionStart = z.infer<typeof sessionStartSchema>;
export type UserTurn = z.infer<typeof userTurnSchema>;
export type UserObservation = z.infer<typeof userObservationSchema>;
export type AudioTurnMessage = z.infer<typeof audioTurnStartSchema> | z.infer<typeof audioTurnCommitSchema> | z.infer<typeof audioTurnCancelSchema>;

/*
 * Agent → client. Every frame is an envelope `{sequence, event}`; events are objects with a
 * `type`. Unknown event types and unknown additive fields are allowed on the wire (`looseObject`)
 * and ignored: they never grant anything.
 */

export const interactionKindSchema = z.enum(['physical.nfc.scan', 'physical.photo.capture']);
export type InteractionKind = z.infer<typeof interactionKindSchema>;
export const interactionModality: Record<InteractionKind, Modality> = {
  'physical.nfc.scan': 'nfc',
  'physical.photo.capture': 'photo',
};

export const sessionEstablishedSchema = z.looseObject({ type: z.literal('session.established'), resumed: z.boolean() });
export const runStartedSchema = z.looseObject({ type: z.literal('run.started'), runId: z.string().max(128).optional() });
export const textDeltaSchema = z.looseObject({ type: z.literal('text.delta'), text: z.string().max(maxFrameBytes) });
export const speechSegmentSchema = z.looseObject({
  type: z.literal('speech.segment'),
  segmentId: z.string().min(1).max(128),
  text: z.string().max(maxFrameBytes),
  stable: z.literal(true),
});
export const runCompletedSchema = z.looseObject({ type: z.literal('run.completed') });
/** `failure`: shown with its code; the message is truncated for display (a hostile agent may send more). */
export const failureSchema = z.looseObject({ type: z.literal('failure'), code: z.string().max(maxFrameBytes), message: z.string().max(maxFrameBytes) });
export const interactionRequestedSchema = z.looseObject({
  type: z.literal('interaction.requested'),
  interactionId: boundedId(limits.interactionIdChars),
  kind: interactionKindSchema,
  /** Bounded for display by the engine (limits.promptChars); a longer prompt is truncated, not fatal. */
  prompt: z.string().min(1).max(maxFrameBytes),
  spokenPrompt: z.string().max(maxFrameBytes).optional(),
  options: z.array(z.unknown()).max(0),
  allowsFreeform: z.literal(false),
});
export const interactionResolvedSchema = z.looseObject({
  type: z.literal('interaction.resolved'),
  interactionId: boundedId(limits.interactionIdChars),
  outcome: z.enum(['answered', 'cancelled']),
});
/**
 * AgentDesk additive events for teaching (the spec requires a staged proposal, what will be
 * remembered and a separate confirmation, but names no event). Other clients ignore them, as the
 * spec asks for unknown event types; AgentDesk shows the proposal with buttons that send
 * `confirmText` / `cancelText` as ordinary `user.turn`s. They grant nothing by themselves.
 */
export const teachingProposedSchema = z.looseObject({
  type: z.literal('teaching.proposed'),
  proposalId: boundedId(limits.interactionIdChars),
  objectRef: z.string().min(1).max(limits.labelChars),
  label: z.string().min(1).max(limits.labelChars),
  confirmText: z.string().min(1).max(200),
  cancelText: z.string().min(1).max(200),
});
export const teachingResolvedSchema = z.looseObject({
  type: z.literal('teaching.resolved'),
  proposalId: boundedId(limits.interactionIdChars),
  outcome: z.enum(['confirmed', 'cancelled', 'invalidated']),
});

/**
 * AgentDesk additive event: an object passport from the agent (src/shared/agentcall/passport.ts).
 * `passport` is checked by the engine, not here: a passport this app cannot read is ignored with a
 * notice, it does not end the session.
 */
export const objectPassportEventSchema = z.looseObject({ type: z.literal('object.passport'), passport: z.unknown().optional() });

export const knownEventSchemas = {
  'session.established': sessionEstablishedSchema,
  'run.started': runStartedSchema,
  'text.delta': textDeltaSchema,
  'speech.segment': speechSegmentSchema,
  'run.completed': runCompletedSchema,
  failure: failureSchema,
  'interaction.requested': interactionRequestedSchema,
  'interaction.resolved': interactionResolvedSchema,
  'teaching.proposed': teachingProposedSchema,
  'teaching.resolved': teachingResolvedSchema,
  'object.passport': objectPassportEventSchema,
} as const;
export type KnownEventType = keyof typeof knownEventSchemas;
export type ServerEvent = { [K in KnownEventType]: z.infer<(typeof knownEventSchemas)[K]> }[KnownEventType];

export const envelopeSchema = z.looseObject({
  sequence: positiveInt,
  event: z.looseObject({ type: z.string().min(1).max(128) }),
});
export type Envelope = z.infer<typeof envelopeSchema>;

export type FrameParse =
  | { ok: true; sequence: number; event: ServerEvent }
  /** A well-formed envelope whose event type this client does not know: acknowledge the sequence, ignore the event. */
  | { ok: true; sequence: number; event: undefined; unknownType: string }
  | { ok: false; code: 'frame_too_large' | 'invalid_json' | 'invalid_envelope' | 'invalid_event'; message: string };

const textEncoder = new TextEncoder();

/** True when the frame's UTF-8 form exceeds 128 KiB (encodes only when the UTF-16 length cannot decide). */
export function frameTooLarge(frame: string): boolean {
  if (frame.length > maxFrameBytes) return true;
  if (frame.length * 3 <= maxFrameBytes) return false;
  return textEncoder.encode(frame).byteLength > maxFrameBytes;
}

/** Parses one text frame from the agent: size first, then JSON, envelope, and the known event's schema. */
export function parseServerFrame(frame: string): FrameParse {
  if (frameTooLarge(frame)) {
    return { ok: false, code: 'frame_too_large', message: `The agent sent a frame larger than ${maxFrameBytes / 1024} KiB.` };
  }
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return { ok: false, code: 'invalid_json', message: 'The agent sent a frame that is not JSON.' };
  }
  const envelope = envelopeSchema.safeParse(json);
  if (!envelope.success) return { ok: false, code: 'invalid_envelope', message: `The agent sent a malformed envelope (${describeIssue(envelope.error)}).` };
  const { sequence, event } = envelope.data;
  // Own keys only: a type such as "toString" or "__proto__" is an unknown type, not Object.prototype's.
  const schema = Object.hasOwn(knownEventSchemas, event.type) ? (knownEventSchemas as Record<string, z.ZodType>)[event.type] : undefined;
  if (!schema) return { ok: true, sequence, event: undefined, unknownType: event.type };
  const parsed = schema.safeParse(event);
  if (!parsed.success) return { ok: false, code: 'invalid_event', message: `The agent sent a malformed ${event.type} event (${describeIssue(parsed.error)}).` };
  return { ok: true, sequence, event: parsed.data as ServerEvent };
}

/** Parses one text frame from the client (the demo agent and conformance use this). */
export function parseClientFrame(frame: string): { ok: true; message: ClientMessage } | { ok: false; code: string; message: string } {
  if (frameTooLarge(frame)) return { ok: false, code: 'frame_too_large', message: `Frames are at most ${maxFrameBytes / 1024} KiB.` };
  let json: unknown;
  try {
    json = JSON.parse(frame);
  } catch {
    return { ok: false, code: 'invalid_json', message: 'The frame is not JSON.' };
  }
  const parsed = clientMessageSchema.safeParse(json);
  if (!parsed.success) return { ok: false, code: 'invalid_message', message: describeIssue(parsed.error) };
  return { ok: true, message: parsed.data };
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.length > 0 ? `/${issue.path.map(String).join('/')}` : '';
  return `${path ? `${path}: ` : ''}${issue.message}`.slice(0, 300);
}
