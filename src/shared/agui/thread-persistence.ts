import { z } from 'zod';
import type { SavedFileFormat } from '../storage/saved-file-format';
import { pointer, type Problem } from '../talkie/problems';
import { customLimits } from './custom-events';
import { formLimits } from './response-form';
import { answerLimits, interruptLimits, metadataWordsLimits, type AguiInterrupt, type AnswerField } from './interrupts';
import { measureJson, type JsonObject, type JsonValue } from './json-values';
import {
  aguiLimits,
  boundThread,
  finishArgs,
  type AguiEncryptedValue,
  type AguiItem,
  type AguiNote,
  type AguiOpenChunk,
  type AguiStep,
  type AguiSubagent,
  type AguiThreadView,
  type ToolResultView,
} from './run-model';

/**
 * A thread view saved to disk and read back (open interrupts survive an app restart). The saved
 * form is the view itself as JSON; `restoreThread` validates it with `aguiThreadViewSchema`
 * (every bound of `aguiLimits`) and then makes it consistent with a fresh process: a run that was
 * starting or streaming is now `dropped` (its stream is gone; the UI offers Retry), streaming
 * items stop, and chunk/span bookkeeping and an unconfirmed resume are cleared — so unanswered
 * interrupts stay open until a resume run actually starts. A thread saved before the conversation
 * bounds (as large as 2,000 items of 200,000 characters) comes back within them (`boundThread`).
 */
export const threadFileLimits = { chars: 16_000_000 } as const;

/**
 * `agui-threads/<agentId>.json`: the view's own `version`; a schema change adds a version and its migration here.
 * - 1: the first.
 * - 2 (#15): an item may carry `at`, when main received it (an older AgentDesk's strict schema would
 *   refuse such a file, so it is a new version: an older app leaves it untouched). 1 → 2 converts nothing.
 * - 3: the thread may carry `encryptedValues` (the provider's encrypted reasoning, sent back with the
 *   next run's history), and an interrupt its `detail` and `toolName` (what its metadata says in
 *   words). 2 → 3 converts nothing.
 */
export const aguiThreadFileFormat: SavedFileFormat = {
  versionField: 'version',
  current: 3,
  migrations: { 1: (document) => document, 2: (document) => document },
};

const s = (max: number) => z.string().max(max);
const id = s(aguiLimits.idChars);
const lane = { subagentRunId: id.optional() };
const json = (maxChars: number, maxDepth: number = aguiLimits.jsonDepth) =>
  z.custom<JsonValue>((value) => measureJson(value, { maxDepth, maxChars }).ok, { message: `not JSON within ${maxChars} characters and ${maxDepth} levels` });
const jsonObject = (maxChars: number, maxDepth: number = aguiLimits.jsonDepth) =>
  z.custom<JsonObject>((value) => value !== null && typeof value === 'object' && !Array.isArray(value) && measureJson(value, { maxDepth, maxChars }).ok, {
    message: `not a JSON object within ${maxChars} characters`,
  });

const toolResultSchema = z.strictObject({
  messageId: id,
  text: s(aguiLimits.toolResultChars),
  truncated: z.literal(true).optional(),
  error: s(aguiLimits.errorChars).optional(),
  media: z
    .array(z.strictObject({ type: z.enum(['image', 'audio', 'video', 'document']), mimeType: s(100).optional() }))
    .max(aguiLimits.mediaParts)
    .optional(),
}) satisfies z.ZodType<ToolResultView>;

const answerFieldSchema = z.strictObject({
  label: s(answerLimits.labelChars),
  value: z.union([s(answerLimits.valueChars), z.number().finite(), z.boolean(), z.array(s(answerLimits.valueChars)).max(answerLimits.choices)]),
}) satisfies z.ZodType<AnswerField>;
export const answerFieldsSchema = z.array(answerFieldSchema).max(answerLimits.fields);

/** One transcript item, every bound of the run model. */
/** An item's time (ms since the epoch), optional: files written before it existed have none. */
const at = z.number().int().min(0).max(8_640_000_000_000_000).optional();

export const aguiItemSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('user'), id, text: s(aguiLimits.userTextChars), ...lane, at }),
  z.strictObject({
    kind: z.literal('text'),
    id,
    role: z.enum(['developer', 'system', 'assistant', 'user']),
    name: s(aguiLimits.nameChars).optional(),
    text: s(aguiLimits.textChars),
    streaming: z.boolean(),
    truncated: z.literal(true).optional(),
    ...lane,
    at,
  }),
  z.strictObject({
    kind: z.literal('reasoning'),
    id,
    spanId: id.optional(),
    text: s(aguiLimits.reasoningChars),
    streaming: z.boolean(),
    truncated: z.literal(true).optional(),
    encryptedHidden: z.literal(true).optional(),
    ...lane,
    at,
  }),
  z.strictObject({
    kind: z.literal('toolCall'),
    id,
    name: s(aguiLimits.nameChars),
    started: z.boolean(),
    parentMessageId: id.optional(),
    argsText: s(aguiLimits.toolArgsChars),
    argsStatus: z.enum(['streaming', 'empty', 'json', 'invalid', 'truncated']),
    argsPretty: s(aguiLimits.toolPrettyChars * 2).optional(),
    state: z.enum(['streaming', 'called', 'completed', 'failed', 'incomplete']),
    result: toolResultSchema.optional(),
    ...lane,
    at,
  }),
  z.strictObject({ kind: z.literal('activity'), id, activityType: s(aguiLimits.nameChars), content: jsonObject(aguiLimits.activityChars), ...lane, at }),
  z.strictObject({
    kind: z.literal('custom'),
    id: s(aguiLimits.nameChars * 2 + 20),
    namespace: s(100),
    label: s(100),
    name: s(aguiLimits.nameChars),
    title: s(customLimits.titleChars),
    text: s(customLimits.textChars).optional(),
    json: s(customLimits.jsonChars).optional(),
    ...lane,
    at,
  }),
  z.strictObject({ kind: z.literal('error'), id: s(aguiLimits.idChars + 10), message: s(aguiLimits.errorChars), code: s(aguiLimits.codeChars).optional(), at }),
  z.strictObject({
    kind: z.literal('answer'),
    id: s(aguiLimits.idChars + 10),
    interruptId: s(interruptLimits.idChars),
    question: s(Math.max(interruptLimits.messageChars, interruptLimits.reasonChars)),
    status: z.enum(['resolved', 'cancelled']),
    fields: answerFieldsSchema,
    at,
  }),
]) satisfies z.ZodType<AguiItem>;

export const aguiInterruptSchema = z.strictObject({
  id: s(interruptLimits.idChars),
  runId: id,
  reason: s(interruptLimits.reasonChars),
  kind: z.enum(['tool_call', 'input_required', 'confirmation', 'generic']),
  message: s(interruptLimits.messageChars).optional(),
  detail: s(interruptLimits.messageChars).optional(),
  toolName: s(metadataWordsLimits.toolNameChars).optional(),
  toolCallId: id.optional(),
  subagentRunId: id.optional(),
  responseSchema: jsonObject(formLimits.schemaChars, formLimits.schemaDepth).optional(),
  schemaProblem: s(500).optional(),
  expiresAt: s(interruptLimits.expiresAtChars).optional(),
  expiresAtMs: z.number().finite().optional(),
  status: z.enum(['open', 'resolved', 'cancelled', 'superseded']),
}) satisfies z.ZodType<AguiInterrupt>;

const stepSchema = z.strictObject({
  id: s(40),
  name: s(aguiLimits.nameChars),
  runId: id.optional(),
  ...lane,
  state: z.enum(['running', 'finished']),
}) satisfies z.ZodType<AguiStep>;

const subagentSchema = z.strictObject({
  id,
  name: s(aguiLimits.nameChars),
  description: s(aguiLimits.errorChars).optional(),
  parentSubagentRunId: id.optional(),
  parentToolCallId: id.optional(),
  parentMessageId: id.optional(),
  runId: id.optional(),
  state: z.enum(['running', 'finished', 'suspended', 'failed']),
  error: z.strictObject({ message: s(aguiLimits.errorChars), code: s(aguiLimits.codeChars).optional() }).optional(),
  interruptIds: z.array(s(interruptLimits.idChars)).max(interruptLimits.perRun).optional(),
}) satisfies z.ZodType<AguiSubagent>;

const noteSchema = z.strictObject({
  seq: z.number().int().min(0),
  code: s(64),
  message: s(aguiLimits.noteChars),
  eventType: s(60).optional(),
}) satisfies z.ZodType<AguiNote>;
const chunkSchema = z.strictObject({ kind: z.enum(['text', 'tool', 'reasoning']), id, ...lane }) satisfies z.ZodType<AguiOpenChunk>;
const count = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const encryptedValueSchema = z.strictObject({
  subtype: z.enum(['message', 'tool-call']),
  entityId: id,
  value: s(aguiLimits.encryptedValueChars),
}) satisfies z.ZodType<AguiEncryptedValue>;

export const aguiThreadViewSchema = z.strictObject({
  version: z.literal(3),
  threadId: id,
  runId: id.optional(),
  runState: z.enum(['idle', 'starting', 'running', 'finished', 'awaitingInput', 'cancelled', 'error', 'dropped']),
  items: z.array(aguiItemSchema).max(aguiLimits.items),
  steps: z.array(stepSchema).max(aguiLimits.steps),
  subagents: z.array(subagentSchema).max(aguiLimits.subagents),
  interrupts: z.array(aguiInterruptSchema).max(interruptLimits.kept + interruptLimits.perRun),
  state: json(aguiLimits.stateChars).optional(),
  error: z.strictObject({ message: s(aguiLimits.errorChars), code: s(aguiLimits.codeChars).optional() }).optional(),
  notes: z.array(noteSchema).max(aguiLimits.notes),
  noteCount: count,
  eventCount: count,
  droppedItems: count,
  openChunks: z.array(chunkSchema).max(aguiLimits.openChunks),
  openSpans: z.array(z.strictObject({ id, ...lane })).max(aguiLimits.openSpans),
  pendingResume: z
    .array(z.strictObject({ interruptId: s(interruptLimits.idChars), status: z.enum(['resolved', 'cancelled']), fields: answerFieldsSchema.optional() }))
    .max(interruptLimits.perRun)
    .optional(),
  legacyThinking: z.strictObject({ runId: id, spanId: id.optional(), messageId: id.optional() }).optional(),
  encryptedValues: z
    .array(encryptedValueSchema)
    .max(aguiLimits.items * 2)
    .refine((entries) => entries.reduce((total, entry) => total + entry.value.length, 0) <= aguiLimits.encryptedTotalChars, {
      message: `more than ${aguiLimits.encryptedTotalChars} characters of encrypted values`,
    })
    .optional(),
}) satisfies z.ZodType<AguiThreadView>;

export function serializeThread(view: AguiThreadView): string {
  return JSON.stringify(view);
}

export type RestoreResult = { ok: true; view: AguiThreadView } | { ok: false; problems: Problem[] };

/** A saved thread (the JSON text, or the already-parsed value) → a view ready for a new process. */
export function restoreThread(saved: string | unknown): RestoreResult {
  let value: unknown = saved;
  if (typeof saved === 'string') {
    if (saved.length > threadFileLimits.chars)
      return {
        ok: false,
        problems: [{ code: 'thread_too_large', path: '', message: `A saved thread may have at most ${threadFileLimits.chars} characters.` }],
      };
    try {
      value = JSON.parse(saved);
    } catch (error) {
      return {
        ok: false,
        problems: [{ code: 'thread_not_json', path: '', message: `The saved thread is not JSON: ${error instanceof Error ? error.message : 'parse error'}` }],
      };
    }
  }
  const parsed = aguiThreadViewSchema.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.slice(0, 20).map((issue) => ({
        code: 'thread_invalid',
        path: pointer(issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))),
        message: issue.message,
      })),
    };
  }
  return { ok: true, view: settle(parsed.data as AguiThreadView) };
}

function settle(view: AguiThreadView): AguiThreadView {
  const { pendingResume: _pending, legacyThinking: _thinking, ...rest } = view;
  const live = view.runState === 'starting' || view.runState === 'running';
  const items = view.items.map((item): AguiItem => {
    if ((item.kind === 'text' || item.kind === 'reasoning') && item.streaming) return { ...item, streaming: false };
    if (item.kind === 'toolCall' && item.state === 'streaming') return { ...finishArgs(item), state: 'incomplete' };
    return item;
  });
  return boundThread({
    ...rest,
    items,
    openChunks: [],
    openSpans: [],
    ...(live ? { runState: 'dropped' as const, error: { code: 'stream_dropped', message: 'The app closed while this run was streaming.' } } : {}),
  });
}
