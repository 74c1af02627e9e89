import type { Context, Message, ResumeEntry, RunAgentInput, Tool } from '@ag-ui/core';
import { PROTOCOL_VERSION, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { pointer, type Problem } from '../talkie/problems';
import { getOwn, isPlainObject, measureJson, truncate, type JsonObject, type JsonValue } from './json-values';
import { describeResponseSchema, formLimits, validateAnswer, type FormField } from './response-form';

/**
 * AG-UI 1.0 interrupts: a run that needs the user ends with
 * `RUN_FINISHED { outcome: { type: "interrupt", interrupts: [...] } }`; the client collects the
 * answers and starts a NEW run on the same thread (new runId) whose `resume[]` answers every open
 * interrupt — `resolved` with a payload, or `cancelled` (expired ones are always cancelled). The
 * resume run never reconnects to the old stream (iac-code adapter spec, "Interrupção e retomada").
 */
export type InterruptKind = 'tool_call' | 'input_required' | 'confirmation' | 'generic';
export type InterruptStatus = 'open' | 'resolved' | 'cancelled' | 'superseded';

export interface AguiInterrupt {
  id: string;
  /** The run whose RUN_FINISHED raised it. */
  runId: string;
  /** The agent's reason, as sent (an open string). */
  reason: string;
  /** How the UI presents it: the three known reasons, anything else generic. */
  kind: InterruptKind;
  message?: string;
  /** What its metadata says in words (a `message` or `reason` in it, see `metadataWords`), for an interrupt that may have no `message`. */
  detail?: string;
  /** The tool its metadata names (a tool suspended before its call was announced has no call to name it). */
  toolName?: string;
  toolCallId?: string;
  subagentRunId?: string;
  /** The JSON Schema the answer must satisfy, when the agent sent a usable one. */
  responseSchema?: JsonObject;
  /** Why a sent schema was not kept (too large or too deep); the form then offers only Cancel. */
  schemaProblem?: string;
  expiresAt?: string;
  /** `expiresAt` parsed (ms since the epoch); absent when it was absent or unparseable (AG-UI: then it never expires). */
  expiresAtMs?: number;
  status: InterruptStatus;
}

export const interruptLimits = { perRun: 100, kept: 200, idChars: 300, reasonChars: 100, messageChars: 4_000, expiresAtChars: 64 } as const;

export const metadataWordsLimits = { depth: 3, objects: 100, toolNameChars: 200 } as const;

/**
 * What metadata says in words, for an event that has no human text of its own: the first `message`
 * (else `reason`) string and the first `toolName`/`tool_name` string, found breadth-first within
 * three levels (@ag-ui/mastra puts `{ mastra: { toolName, suspendPayload: { reason } } }` on a
 * suspended tool's interrupt). Bounded: at most `metadataWordsLimits.objects` objects are looked at.
 */
export function metadataWords(metadata: unknown): { text?: string; toolName?: string } {
  const found: Record<'message' | 'reason' | 'toolName', string | undefined> = { message: undefined, reason: undefined, toolName: undefined };
  let level: unknown[] = [metadata];
  let seen = 0;
  for (let depth = 0; depth < metadataWordsLimits.depth && level.length > 0; depth++) {
    const next: unknown[] = [];
    for (const node of level) {
      if (!isPlainObject(node) || seen >= metadataWordsLimits.objects) continue;
      seen += 1;
      for (const [key, value] of Object.entries(node)) {
        const name = key === 'tool_name' ? 'toolName' : key;
        if ((name === 'message' || name === 'reason' || name === 'toolName') && typeof value === 'string' && value.trim() !== '') found[name] ??= value.trim();
        else if (isPlainObject(value)) next.push(value);
      }
    }
    level = next;
  }
  const text = found.message ?? found.reason;
  return {
    ...(text === undefined ? {} : { text: truncate(text, interruptLimits.messageChars) }),
    ...(found.toolName === undefined ? {} : { toolName: truncate(found.toolName, metadataWordsLimits.toolNameChars) }),
  };
}

export function interruptKind(reason: string): InterruptKind {
  return reason === 'tool_call' || reason === 'input_required' || reason === 'confirmation' ? reason : 'generic';
}

/** A wire interrupt (already validated by @ag-ui/core's InterruptSchema) → the view's record. */
export function toAguiInterrupt(
  raw: {
    id: string;
    reason: string;
    message?: string;
    toolCallId?: string;
    subagentRunId?: string;
    responseSchema?: Record<string, unknown>;
    expiresAt?: string;
    metadata?: unknown;
  },
  runId: string,
): AguiInterrupt {
  const words = metadataWords(raw.metadata);
  const reason = truncate(raw.reason, interruptLimits.reasonChars);
  const expiresAt = raw.expiresAt === undefined ? undefined : truncate(raw.expiresAt, interruptLimits.expiresAtChars);
  const parsed = expiresAt === undefined ? Number.NaN : Date.parse(expiresAt);
  let responseSchema: JsonObject | undefined;
  let schemaProblem: string | undefined;
  if (raw.responseSchema !== undefined) {
    const measure = measureJson(raw.responseSchema, { maxDepth: formLimits.schemaDepth, maxChars: formLimits.schemaChars });
    if (measure.ok) responseSchema = raw.responseSchema as JsonObject;
    else schemaProblem = `The response schema is ${measure.message}.`;
  }
  return {
    id: raw.id,
    runId,
    reason,
    kind: interruptKind(reason),
    ...(raw.message === undefined ? {} : { message: truncate(raw.message, interruptLimits.messageChars) }),
    ...(words.text === undefined || words.text === raw.message ? {} : { detail: words.text }),
    ...(words.toolName === undefined ? {} : { toolName: words.toolName }),
    // Ids are compared, never shortened: one too long to keep is left out.
    ...(raw.toolCallId === undefined || raw.toolCallId.length > interruptLimits.idChars ? {} : { toolCallId: raw.toolCallId }),
    ...(raw.subagentRunId === undefined || raw.subagentRunId.length > interruptLimits.idChars ? {} : { subagentRunId: raw.subagentRunId }),
    ...(responseSchema === undefined ? {} : { responseSchema }),
    ...(schemaProblem === undefined ? {} : { schemaProblem }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    ...(Number.isNaN(parsed) ? {} : { expiresAtMs: parsed }),
    status: 'open',
  };
}

/** One answered field, as the transcript shows it ("Approve the change: Yes"); the renderer words the values. */
export interface AnswerField {
  /** The field's label, with its parents' for nested objects ("Target › Region"); "" for a schema that is a single value. */
  label: string;
  value: string | number | boolean | string[];
}

export const answerLimits = { fields: 50, labelChars: 300, valueChars: 500, choices: 20 } as const;

/**
 * What the user answered, field by field in the form's order, for the record in the transcript:
 * only fields the answer has, strings and choices bounded. Empty without a usable schema (a
 * confirmation without fields) or without a payload.
 */
export function summarizeAnswer(interrupt: Pick<AguiInterrupt, 'responseSchema'>, payload: unknown): AnswerField[] {
  if (payload === undefined || interrupt.responseSchema === undefined) return [];
  const described = describeResponseSchema(interrupt.responseSchema);
  if (!described.ok) return [];
  const out: AnswerField[] = [];
  const walk = (field: FormField, value: unknown, parents: readonly string[]) => {
    if (out.length >= answerLimits.fields || value === undefined) return;
    if (field.kind === 'object') {
      if (!isPlainObject(value)) return;
      const labels = field.path === '' ? parents : [...parents, field.label];
      for (const child of field.fields) walk(child, getOwn(value, child.key), labels);
      return;
    }
    const label = truncate([...parents, field.label].filter((part) => part !== '').join(' › '), answerLimits.labelChars);
    if (field.kind === 'json') {
      if (isPlainObject(value)) out.push({ label, value: truncate(JSON.stringify(value), answerLimits.valueChars) });
    } else if (field.kind === 'choices') {
      if (Array.isArray(value))
        out.push({
          label,
          value: value
            .filter((entry): entry is string => typeof entry === 'string')
            .slice(0, answerLimits.choices)
            .map((entry) => truncate(entry, answerLimits.valueChars)),
        });
    } else if (typeof value === 'string') out.push({ label, value: truncate(value, answerLimits.valueChars) });
    else if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') out.push({ label, value });
  };
  walk(described.form.root, payload, []);
  return out;
}

export function isInterruptExpired(interrupt: Pick<AguiInterrupt, 'expiresAtMs'>, now: number): boolean {
  return interrupt.expiresAtMs !== undefined && interrupt.expiresAtMs <= now;
}

/** What the user decided for one interrupt. */
export type InterruptAnswer = { status: 'resolved'; payload?: JsonValue } | { status: 'cancelled' };

export type ResumeResult = { ok: true; resume: ResumeEntry[]; expired: string[] } | { ok: false; problems: Problem[] };

/**
 * The `resume[]` for the next RunAgentInput: one entry per open interrupt, in order.
 * - Every open interrupt needs an answer (`resume_missing_answer` otherwise); answers for unknown
 *   ids are refused (`resume_unknown_interrupt`).
 * - An expired interrupt (expiresAt ≤ now) is sent as `cancelled` whatever the answer; its id is
 *   listed in `expired` so the UI can say so.
 * - A resolved payload is checked against the interrupt's responseSchema when it has a usable one
 *   (`resume_invalid_payload`, with the answer's pointer in `path`), and is always bounded JSON.
 */
export function buildResume(openInterrupts: readonly AguiInterrupt[], answers: Readonly<Record<string, InterruptAnswer>>, now: number): ResumeResult {
  const problems: Problem[] = [];
  const open = openInterrupts.filter((interrupt) => interrupt.status === 'open');
  const ids = new Set(open.map((interrupt) => interrupt.id));
  for (const id of Object.keys(answers)) {
    if (!ids.has(id)) problems.push({ code: 'resume_unknown_interrupt', path: pointer([id]), message: `No open interrupt has the id "${id.slice(0, 80)}".` });
  }
  const resume: ResumeEntry[] = [];
  const expired: string[] = [];
  for (const interrupt of open) {
    const answer = Object.hasOwn(answers, interrupt.id) ? answers[interrupt.id] : undefined;
    if (isInterruptExpired(interrupt, now)) {
      expired.push(interrupt.id);
      resume.push({ interruptId: interrupt.id, status: 'cancelled' });
      continue;
    }
    if (answer === undefined) {
      problems.push({
        code: 'resume_missing_answer',
        path: pointer([interrupt.id]),
        message: `The interrupt "${interrupt.id.slice(0, 80)}" has no answer (resolve or cancel it).`,
      });
      continue;
    }
    if (answer === null || typeof answer !== 'object') {
      problems.push({ code: 'resume_invalid_answer', path: pointer([interrupt.id]), message: 'An answer is either resolved or cancelled.' });
      continue;
    }
    if (answer.status === 'cancelled') {
      resume.push({ interruptId: interrupt.id, status: 'cancelled' });
      continue;
    }
    if (answer.status !== 'resolved') {
      problems.push({ code: 'resume_invalid_answer', path: pointer([interrupt.id]), message: 'An answer is either resolved or cancelled.' });
      continue;
    }
    if (answer.payload === null) {
      // AG-UI's ResumeEntry refuses a null payload: leave it out instead.
      problems.push({
        code: 'resume_invalid_payload',
        path: pointer([interrupt.id]),
        message: 'The answer is null; a resolved answer carries a value or none.',
      });
      continue;
    }
    if (answer.payload !== undefined) {
      const measure = measureJson(answer.payload, { maxDepth: formLimits.answerDepth, maxChars: formLimits.answerChars });
      if (!measure.ok) {
        problems.push({ code: 'resume_invalid_payload', path: pointer([interrupt.id]), message: `The answer is ${measure.message}.` });
        continue;
      }
    }
    if (interrupt.responseSchema !== undefined) {
      const form = describeResponseSchema(interrupt.responseSchema);
      if (form.ok) {
        const answerProblems = validateAnswer(form.form, answer.payload);
        if (answerProblems.length > 0) {
          for (const problem of answerProblems)
            problems.push({ code: 'resume_invalid_payload', path: `${pointer([interrupt.id])}${problem.path}`, message: problem.message });
          continue;
        }
      }
    }
    resume.push({ interruptId: interrupt.id, status: 'resolved', ...(answer.payload === undefined ? {} : { payload: answer.payload }) });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, resume, expired };
}

export interface RunInputParams {
  threadId: string;
  runId: string;
  messages: readonly Message[];
  tools?: readonly Tool[];
  context?: readonly Context[];
  state?: JsonValue;
  forwardedProps?: JsonValue;
  resume?: readonly ResumeEntry[];
  parentRunId?: string;
}

export type RunInputResult = { ok: true; input: RunAgentInput } | { ok: false; problems: Problem[] };

export const runInputLimits = { idChars: 300, forwardedPropsChars: 65_536, forwardedPropsDepth: 16, stateChars: 262_144, stateDepth: 32 } as const;

/**
 * The RunAgentInput for the next run: same threadId, a new runId, the whole message history the
 * client keeps (plain AG-UI servers are stateless), the current state (`{}` when none), `forwardedProps` (e.g.
 * iac-code's `{ iacCode: { cwd, … } }`; `{}` when none) and `resume[]` when answering interrupts. Validated with
 * @ag-ui/core's own RunAgentInputSchema; `protocolVersion` is the installed protocol's ("1.0").
 */
export function buildRunInput(params: RunInputParams): RunInputResult {
  const problems: Problem[] = [];
  for (const key of ['threadId', 'runId'] as const) {
    const value = params[key];
    if (typeof value !== 'string' || value.trim() === '' || value.length > runInputLimits.idChars) {
      problems.push({
        code: 'run_input_invalid_id',
        path: pointer([key]),
        message: `${key} must be a non-empty string of at most ${runInputLimits.idChars} characters.`,
      });
    }
  }
  if (params.forwardedProps !== undefined) {
    const measure = measureJson(params.forwardedProps, { maxDepth: runInputLimits.forwardedPropsDepth, maxChars: runInputLimits.forwardedPropsChars });
    if (!measure.ok) problems.push({ code: 'run_input_forwarded_props', path: '/forwardedProps', message: `forwardedProps is ${measure.message}.` });
  }
  if (params.state !== undefined) {
    const measure = measureJson(params.state, { maxDepth: runInputLimits.stateDepth, maxChars: runInputLimits.stateChars });
    if (!measure.ok) problems.push({ code: 'run_input_state', path: '/state', message: `state is ${measure.message}.` });
  }
  if (params.resume !== undefined) {
    const seen = new Set<string>();
    for (const [index, entry] of params.resume.entries()) {
      if (seen.has(entry.interruptId))
        problems.push({
          code: 'run_input_duplicate_resume',
          path: pointer(['resume', index, 'interruptId']),
          message: `Interrupt "${entry.interruptId.slice(0, 80)}" is answered twice.`,
        });
      seen.add(entry.interruptId);
    }
  }
  if (problems.length > 0) return { ok: false, problems };
  const candidate = {
    threadId: params.threadId,
    runId: params.runId,
    protocolVersion: PROTOCOL_VERSION,
    ...(params.parentRunId === undefined ? {} : { parentRunId: params.parentRunId }),
    // Always present ({} before the agent has sent any state), as @ag-ui/client sends it: some
    // servers' input checks require the field.
    state: params.state ?? {},
    messages: [...params.messages],
    tools: [...(params.tools ?? [])],
    context: [...(params.context ?? [])],
    // Always present ({} when none): the official Python SDK's RunAgentInput requires it (0.1.20
    // answers a body without it with an exception), and @ag-ui/client always sends it.
    forwardedProps: params.forwardedProps ?? {},
    ...(params.resume === undefined || params.resume.length === 0 ? {} : { resume: [...params.resume] }),
  };
  const parsed = RunAgentInputSchema.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.slice(0, 20).map((issue) => ({
        code: 'run_input_invalid',
        path: pointer(issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))),
        message: issue.message,
      })),
    };
  }
  // The candidate, not zod's output: the wire gets exactly what was built (no defaults materialised).
  return { ok: true, input: candidate as RunAgentInput };
}

/** forwardedProps as edited by the user (JSON text) → a JSON object, or a problem with a stable code. */
export function parseForwardedProps(text: string): { ok: true; value: JsonObject } | { ok: false; problems: Problem[] } {
  if (text.trim() === '') return { ok: true, value: {} };
  if (text.length > runInputLimits.forwardedPropsChars)
    return {
      ok: false,
      problems: [{ code: 'forwarded_props_too_large', path: '', message: `forwardedProps may have at most ${runInputLimits.forwardedPropsChars} characters.` }],
    };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        { code: 'forwarded_props_not_json', path: '', message: `forwardedProps is not JSON: ${error instanceof Error ? error.message : 'parse error'}` },
      ],
    };
  }
  if (!isPlainObject(value))
    return { ok: false, problems: [{ code: 'forwarded_props_not_object', path: '', message: 'forwardedProps must be a JSON object.' }] };
  const measure = measureJson(value, { maxDepth: runInputLimits.forwardedPropsDepth, maxChars: runInputLimits.forwardedPropsChars });
  if (!measure.ok) return { ok: false, problems: [{ code: 'forwarded_props_too_large', path: '', message: `forwardedProps is ${measure.message}.` }] };
  return { ok: true, value: value as JsonObject };
}
