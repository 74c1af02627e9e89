import { z } from 'zod';

/**
 * The `openai-realtime/1` event protocol (Talkie 1 §10), only the part AgentDesk reads and sends.
 * - Provider → client: `parseRealtimeMessage` validates the events the client acts on (loose:
 *   unknown fields pass); other event types are ignored, malformed known ones reported invalid.
 * - Client → provider: `allowedClientEvent` is the one gate every outgoing message passes. It lets
 *   through only what Talkie 1 §10 allows the client to say: a `session.update` that touches nothing but
 *   turn detection, a function call's output, and response/audio-buffer control.
 */
export const realtimeMessageMaxChars = 256 * 1024;

const id = z.string().min(1).max(200);
const transcript = z.string().max(20_000);

const turnDetectionSchema = z.strictObject({
  type: z.enum(['server_vad', 'semantic_vad']),
  create_response: z.boolean().optional(),
  interrupt_response: z.boolean().optional(),
  threshold: z.number().min(0).max(1).optional(),
  prefix_padding_ms: z.number().int().nonnegative().max(10_000).optional(),
  silence_duration_ms: z.number().int().nonnegative().max(10_000).optional(),
  idle_timeout_ms: z.number().int().nonnegative().max(600_000).nullable().optional(),
  eagerness: z.enum(['low', 'medium', 'high', 'auto']).optional(),
});
export type TurnDetection = z.infer<typeof turnDetectionSchema>;

const sessionObject = z.looseObject({
  audio: z.looseObject({ input: z.looseObject({ turn_detection: z.unknown().optional() }).optional() }).optional(),
  turn_detection: z.unknown().optional(),
});
const functionName = z.string().min(1).max(64);
const functionArguments = z.string().max(100_000);

const providerEventSchemas = {
  'session.created': z.looseObject({ type: z.literal('session.created'), session: sessionObject }),
  /** The provider applied a `session.update` (it answers a refused one with `error` instead). */
  'session.updated': z.looseObject({ type: z.literal('session.updated'), session: sessionObject }),
  'input_audio_buffer.speech_started': z.looseObject({
    type: z.literal('input_audio_buffer.speech_started'),
    item_id: id,
    audio_start_ms: z.number().optional(),
  }),
  'input_audio_buffer.speech_stopped': z.looseObject({
    type: z.literal('input_audio_buffer.speech_stopped'),
    item_id: id,
    audio_end_ms: z.number().optional(),
  }),
  'conversation.item.added': z.looseObject({
    type: z.literal('conversation.item.added'),
    previous_item_id: id.nullable().optional(),
    item: z.looseObject({ id, type: z.string().max(40), role: z.string().max(20).optional() }),
  }),
  'conversation.item.input_audio_transcription.completed': z.looseObject({
    type: z.literal('conversation.item.input_audio_transcription.completed'),
    item_id: id,
    transcript,
  }),
  'conversation.item.input_audio_transcription.failed': z.looseObject({
    type: z.literal('conversation.item.input_audio_transcription.failed'),
    item_id: id,
    error: z.looseObject({ message: z.string().max(2000).optional() }).optional(),
  }),
  'response.created': z.looseObject({ type: z.literal('response.created'), response: z.looseObject({ id }) }),
  'response.done': z.looseObject({ type: z.literal('response.done'), response: z.looseObject({ id, status: z.string().max(40).optional() }) }),
  /**
   * The arguments are complete; also sent for a call cut off by an interruption or cancel (its item
   * then ends `incomplete`), and in older documentation without `name` (it is on the item).
   */
  'response.function_call_arguments.done': z.looseObject({
    type: z.literal('response.function_call_arguments.done'),
    response_id: id.optional(),
    item_id: id.optional(),
    call_id: id,
    name: functionName.optional(),
    arguments: functionArguments,
  }),
  /** An output item is finished: a `function_call` runs only when its status is `completed`. */
  'response.output_item.done': z.looseObject({
    type: z.literal('response.output_item.done'),
    response_id: id.optional(),
    item: z.looseObject({
      id: id.optional(),
      type: z.string().max(40),
      status: z.string().max(40).optional(),
      call_id: id.optional(),
      name: functionName.optional(),
      arguments: functionArguments.optional(),
    }),
  }),
  'output_audio_buffer.started': z.looseObject({ type: z.literal('output_audio_buffer.started'), response_id: id }),
  'output_audio_buffer.stopped': z.looseObject({ type: z.literal('output_audio_buffer.stopped'), response_id: id }),
  'output_audio_buffer.cleared': z.looseObject({ type: z.literal('output_audio_buffer.cleared'), response_id: id }),
  'response.output_audio_transcript.done': z.looseObject({
    type: z.literal('response.output_audio_transcript.done'),
    response_id: id,
    item_id: id,
    transcript,
  }),
  error: z.looseObject({
    type: z.literal('error'),
    error: z.looseObject({
      type: z.string().max(100).optional(),
      code: z.string().max(100).nullable().optional(),
      message: z.string().max(2000),
      param: z.string().max(200).nullable().optional(),
      /** The client event this error answers, when it had an `event_id`. */
      event_id: z.string().max(200).nullable().optional(),
    }),
  }),
} as const;

type ProviderEventType = keyof typeof providerEventSchemas;
export type RealtimeEvent = { [K in ProviderEventType]: z.infer<(typeof providerEventSchemas)[K]> }[ProviderEventType];
export const realtimeEventTypes = Object.keys(providerEventSchemas) as ProviderEventType[];

export type RealtimeInterpretation = { kind: 'event'; event: RealtimeEvent } | { kind: 'ignored'; reason: string } | { kind: 'invalid'; reason: string };

/** One data-channel message (text) → a validated event, or why it is not one. */
export function parseRealtimeMessage(text: string): RealtimeInterpretation {
  if (text.length > realtimeMessageMaxChars) return { kind: 'invalid', reason: `message over ${realtimeMessageMaxChars} characters` };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'message is not JSON' };
  }
  return interpretRealtimeEvent(json);
}

export function interpretRealtimeEvent(json: unknown): RealtimeInterpretation {
  const type = (json as { type?: unknown } | null)?.type;
  if (typeof type !== 'string' || !Object.hasOwn(providerEventSchemas, type)) return { kind: 'ignored', reason: `${String(type).slice(0, 80)} is not read` };
  const parsed = providerEventSchemas[type as ProviderEventType].safeParse(json);
  if (!parsed.success) return { kind: 'invalid', reason: `${type}: ${parsed.error.issues[0]?.message ?? 'invalid'}` };
  return { kind: 'event', event: parsed.data as RealtimeEvent };
}

/** The server's turn detection from `session.created`/`session.updated` (GA or beta shape), or undefined when absent or unknown. */
export function sessionTurnDetection(event: Extract<RealtimeEvent, { type: 'session.created' | 'session.updated' }>): TurnDetection | undefined {
  const raw = event.session.audio?.input?.turn_detection ?? event.session.turn_detection;
  const parsed = turnDetectionSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

// ---- client → provider -------------------------------------------------------------------------

const eventId = z.string().min(1).max(200).optional();
/**
 * GA requires `session.type: "realtime"` in every update; it names the session kind and changes nothing.
 * Nothing else may sit beside turn detection (no instructions, tools, model, voice, …).
 */
const sessionKind = z.literal('realtime').optional();

const clientEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('session.update'),
    event_id: eventId,
    session: z.union([
      z.strictObject({ type: sessionKind, audio: z.strictObject({ input: z.strictObject({ turn_detection: turnDetectionSchema }) }) }),
      z.strictObject({ type: sessionKind, turn_detection: turnDetectionSchema }),
    ]),
  }),
  z.strictObject({
    type: z.literal('conversation.item.create'),
    event_id: eventId,
    previous_item_id: id.optional(),
    item: z.strictObject({ type: z.literal('function_call_output'), call_id: id, output: z.string().max(100_000) }),
  }),
  // No `response` object: it could carry instructions or tools for that one response.
  z.strictObject({ type: z.literal('response.create'), event_id: eventId }),
  z.strictObject({ type: z.literal('response.cancel'), event_id: eventId, response_id: id.optional() }),
  z.strictObject({ type: z.literal('input_audio_buffer.clear'), event_id: eventId }),
]);
export type ClientEvent = z.infer<typeof clientEventSchema>;

export type ClientEventCheck = { ok: true; event: ClientEvent } | { ok: false; reason: string };

/** Talkie 1 §10.1: the only gate for messages to the provider. Anything not listed is refused with why. */
export function allowedClientEvent(message: unknown): ClientEventCheck {
  const parsed = clientEventSchema.safeParse(message);
  if (parsed.success) return { ok: true, event: parsed.data };
  const type = (message as { type?: unknown } | null)?.type;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
  return { ok: false, reason: `${String(type).slice(0, 80)} refused${where}: ${issue?.message ?? 'not allowed'}` };
}

export const defaultTurnDetection: TurnDetection = { type: 'server_vad' };

/** The one allowed `session.update`: the server's turn detection with `create_response` set (C2, C13). */
export function turnDetectionUpdate(base: TurnDetection, createResponse: boolean): Extract<ClientEvent, { type: 'session.update' }> {
  return { type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: { ...base, create_response: createResponse } } } } };
}

/** What a `session.update` sets `create_response` to (undefined when it does not say). */
export function updatedCreateResponse(event: Extract<ClientEvent, { type: 'session.update' }>): boolean | undefined {
  return ('audio' in event.session ? event.session.audio.input.turn_detection : event.session.turn_detection).create_response;
}

export function functionCallOutput(callId: string, output: string): ClientEvent {
  return { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } };
}

export const responseCreate: ClientEvent = { type: 'response.create' };
