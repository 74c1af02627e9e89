import fc from 'fast-check';
import { buildResume, buildRunInput, summarizeAnswer, toAguiInterrupt, answerLimits, type InterruptAnswer } from '../../../src/shared/agui/interrupts';
import { applyJsonPatch, defaultPatchLimits, type PatchOperation } from '../../../src/shared/agui/json-patch';
import { measureJson, type JsonValue } from '../../../src/shared/agui/json-values';
import { describeResponseSchema, formLimits, initialAnswer, validateAnswer, type FormField } from '../../../src/shared/agui/response-form';
import {
  addUserMessage,
  aguiLimits,
  applyAguiEvent,
  beginRun,
  createThread,
  groupBySubagent,
  historyMessages,
  markRequestFailed,
  markStreamDropped,
  openInterrupts,
  type AguiThreadView,
} from '../../../src/shared/agui/run-model';
import { aguiThreadViewSchema, restoreThread, serializeThread } from '../../../src/shared/agui/thread-persistence';
import { anyJson, check, isJsonSerializable, mutatedFrom, nastyStrings, nastyValue, target, viaJson } from '../kit';

/** The plain AG-UI run model, JSON Patch, interrupt response schemas and answers. */

// --- response schemas -------------------------------------------------------------------------

const label = fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom(...nastyStrings)), { nil: undefined });
const count = fc.option(fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(-1, 1.5, 1e9)), { nil: undefined });
const bound = fc.option(fc.oneof(fc.integer({ min: -50, max: 50 }), fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 })), {
  nil: undefined,
});
const choices = fc.uniqueArray(fc.oneof(fc.constantFrom('a', 'b', 'c', 'yes', 'no', ''), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: 5 });

const clean = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined));

const leafSchema: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc
    .record({
      type: fc.constant('string'),
      title: label,
      description: label,
      enum: fc.option(choices, { nil: undefined }),
      format: fc.option(fc.constantFrom('email', 'uri', 'date', 'date-time', 'time', 'regex'), { nil: undefined }),
      minLength: count,
      maxLength: count,
      default: fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
    })
    .map(clean),
  fc
    .record({
      type: fc.constantFrom('number', 'integer', ['integer', 'null']),
      title: label,
      minimum: bound,
      maximum: bound,
      exclusiveMinimum: bound,
      exclusiveMaximum: bound,
      default: bound,
    })
    .map(clean),
  fc.record({ type: fc.constant('boolean'), title: label, default: fc.option(fc.boolean(), { nil: undefined }) }).map(clean),
  fc
    .record({
      type: fc.constant('array'),
      items: choices.map((options) => ({ type: 'string', enum: options })),
      minItems: count,
      maxItems: count,
      uniqueItems: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map(clean),
  fc.record({ const: fc.string({ maxLength: 6 }) }),
  fc.constantFrom(
    { $ref: '#/$defs/choice' },
    { $ref: '#/definitions/missing' },
    { $ref: 'https://remote.example/schema.json' },
    { oneOf: [{ type: 'string' }] },
    { type: 'null' },
    {},
  ),
);

const { schema: fieldSchema } = fc.letrec<{ schema: Record<string, unknown> }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafSchema,
    fc
      .record({
        type: fc.constant('object'),
        title: label,
        properties: fc.dictionary(
          fc.oneof(fc.constantFrom('name', 'approved', 'count', 'region', '__proto__', 'a/b', '~'), fc.string({ maxLength: 5 })),
          tie('schema'),
          { maxKeys: 4 },
        ),
        requiredPick: fc.array(fc.nat(), { maxLength: 3 }),
        additionalProperties: fc.option(fc.boolean(), { nil: undefined }),
      })
      .map(({ properties, requiredPick, ...rest }) => {
        const names = Object.keys(properties);
        const required = names.length === 0 ? [] : [...new Set(requiredPick.map((pick) => names[pick % names.length]!))];
        return clean({ ...rest, properties, ...(required.length > 0 ? { required } : {}) });
      }),
  ),
}));

const schemaSeeds = [
  { type: 'object', properties: { approved: { type: 'boolean', title: 'Approve' }, note: { type: 'string', maxLength: 20 } }, required: ['approved'] },
  {
    type: 'object',
    $defs: { choice: { type: 'string', enum: ['a', 'b'] } },
    properties: { pick: { $ref: '#/$defs/choice' }, tags: { type: 'array', items: { $ref: '#/$defs/choice' }, uniqueItems: true } },
  },
  { type: 'string', format: 'date-time' },
  { $ref: '#/$defs/loop', $defs: { loop: { $ref: '#/$defs/loop' } } },
];

export const responseSchemaArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fieldSchema.map((schema) => viaJson({ ...schema, $defs: { choice: { type: 'string', enum: ['x', 'y'] } } })) },
  { weight: 3, arbitrary: mutatedFrom(schemaSeeds, 3) },
  { weight: 1, arbitrary: anyJson },
);

/** An answer meant to satisfy the field, or undefined when the constraints contradict each other. */
function conformingAnswer(field: FormField): unknown {
  switch (field.kind) {
    case 'string': {
      const fits = (value: string) => {
        const length = [...value].length;
        return (
          (field.minLength === undefined || length >= field.minLength) &&
          (field.maxLength === undefined || length <= field.maxLength) &&
          (!field.required || value.trim() !== '' || field.enum !== undefined)
        );
      };
      // Choices that must also match a format: whether one does is the validator's own question.
      if (field.enum !== undefined && field.format !== undefined) return undefined;
      if ((field.minLength ?? 0) > formLimits.stringChars) return undefined;
      const candidates =
        field.enum ??
        (field.format === undefined
          ? ['x'.repeat(Math.max(1, field.minLength ?? 1))]
          : [{ email: 'a@b.co', uri: 'https://example.com/', date: '2026-01-02', 'date-time': '2026-01-02T03:04:05Z', time: '03:04:05Z' }[field.format]]);
      return candidates.find(fits);
    }
    case 'number': {
      let low = Math.max(field.minimum ?? -Infinity, field.exclusiveMinimum === undefined ? -Infinity : field.exclusiveMinimum + (field.integer ? 1 : 1e-6));
      const high = Math.min(field.maximum ?? Infinity, field.exclusiveMaximum === undefined ? Infinity : field.exclusiveMaximum - (field.integer ? 1 : 1e-6));
      if (field.integer) low = Math.ceil(low);
      const value = Number.isFinite(low) ? low : Number.isFinite(high) ? (field.integer ? Math.floor(high) : high) : 0;
      const ok =
        value <= high &&
        (field.exclusiveMinimum === undefined || value > field.exclusiveMinimum) &&
        (field.exclusiveMaximum === undefined || value < field.exclusiveMaximum) &&
        Number.isFinite(value);
      return ok ? value : undefined;
    }
    case 'boolean':
      return true;
    case 'choices': {
      const wanted = Math.max(field.minItems ?? 0, 0);
      if (wanted > field.options.length || (field.maxItems !== undefined && wanted > field.maxItems)) return undefined;
      return field.options.slice(0, wanted);
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const child of field.fields) {
        const value = conformingAnswer(child);
        if (value === undefined) return undefined;
        Object.defineProperty(out, child.key, { value, enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
  }
}

function countFields(field: FormField): number {
  return field.kind === 'object' ? 1 + field.fields.reduce((sum, child) => sum + countFields(child), 0) : 1;
}

export const responseFormTarget = target({
  name: 'agui.responseForm',
  weight: 8,
  arbitrary: fc.record({ schema: responseSchemaArb, answer: fc.oneof(anyJson, fc.constant('conforming'), fc.constant('initial')) }),
  property: ({ schema, answer }) => {
    const described = describeResponseSchema(schema);
    check(isJsonSerializable(described), 'the result is JSON');
    if (!described.ok) {
      check(
        described.problems.length > 0 && described.problems.every((problem) => typeof problem.code === 'string' && problem.message.length <= 400),
        'problems',
      );
      return;
    }
    const { form } = described;
    check(countFields(form.root) <= formLimits.fields, 'fields bounded');
    const initial = initialAnswer(form);
    check(initial === undefined || isJsonSerializable(initial), 'the initial answer is JSON');
    const value = answer === 'conforming' ? conformingAnswer(form.root) : answer === 'initial' ? initial : answer;
    const problems = validateAnswer(form, value);
    check(problems.length <= 50 && problems.every((problem) => problem.path === '' || problem.path.startsWith('/')), 'answer problems');
    if (answer === 'conforming' && value !== undefined)
      check(problems.length === 0, () => `an answer built to satisfy the form is refused: ${JSON.stringify(problems[0])} for ${JSON.stringify(value)}`);
    const fields = summarizeAnswer({ responseSchema: schema as never }, value);
    check(fields.length <= answerLimits.fields && isJsonSerializable(fields), 'summary bounded');
  },
});

// --- interrupts and resume --------------------------------------------------------------------

const interruptArb = fc.record({
  id: fc.oneof(fc.constantFrom('i-1', 'i-2', 'i-3'), fc.string({ minLength: 1, maxLength: 8 })),
  reason: fc.oneof(fc.constantFrom('tool_call', 'input_required', 'confirmation', 'other'), fc.string({ maxLength: 120 })),
  message: fc.option(fc.string(), { nil: undefined }),
  responseSchema: fc.option(
    responseSchemaArb.filter((value): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)),
    { nil: undefined },
  ),
  expiresAt: fc.option(fc.oneof(fc.constantFrom('2000-01-01T00:00:00Z', '2999-01-01T00:00:00Z', 'soon', ''), fc.string()), { nil: undefined }),
});
const answerArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ status: fc.constant('resolved'), payload: fc.option(anyJson, { nil: undefined }) }).map(clean),
  fc.constant({ status: 'cancelled' }),
  fc.constant('conforming'),
  anyJson,
);

export const resumeTarget = target({
  name: 'agui.interrupts',
  weight: 6,
  arbitrary: fc.record({
    interrupts: fc.array(interruptArb, { maxLength: 4 }),
    answers: fc.array(fc.tuple(fc.oneof(fc.constantFrom('i-1', 'i-2', 'i-3'), fc.string({ maxLength: 5 })), answerArb), { maxLength: 5 }),
    now: fc.oneof(fc.constant(Date.parse('2026-09-07T10:00:00Z')), fc.integer()),
  }),
  property: ({ interrupts, answers, now }) => {
    const open = interrupts.map((raw) => toAguiInterrupt(viaJson(raw), 'run-1'));
    const record: Record<string, InterruptAnswer> = {};
    for (const [id, answer] of answers) {
      let value = answer;
      if (answer === 'conforming') {
        const interrupt = open.find((entry) => entry.id === id);
        const form = interrupt?.responseSchema ? describeResponseSchema(interrupt.responseSchema) : undefined;
        value = { status: 'resolved', ...(form?.ok ? { payload: conformingAnswer(form.form.root) } : {}) };
      }
      Object.defineProperty(record, id, { value, enumerable: true, writable: true, configurable: true });
    }
    const result = buildResume(open, record, now);
    check(isJsonSerializable(result), 'the result is JSON');
    if (!result.ok) return;
    const ids = [...new Set(open.map((interrupt) => interrupt.id))];
    check(
      result.resume.every((entry) => ids.includes(entry.interruptId)),
      'resume answers open interrupts only',
    );
    check(
      result.expired.every((id) => result.resume.some((entry) => entry.interruptId === id && entry.status === 'cancelled')),
      'expired ones are cancelled',
    );
    const input = buildRunInput({ threadId: 'thread-1', runId: 'run-2', messages: [], resume: result.resume });
    check(
      input.ok || input.problems.some((problem) => problem.code === 'run_input_duplicate_resume'),
      () => `a built resume[] is not a valid RunAgentInput: ${JSON.stringify(!input.ok && input.problems[0])}`,
    );
  },
});

// --- JSON Patch --------------------------------------------------------------------------------

function pointersOf(value: unknown, prefix = '', out: string[] = []): string[] {
  out.push(prefix);
  if (out.length > 60) return out;
  if (Array.isArray(value)) value.forEach((entry, index) => pointersOf(entry, `${prefix}/${index}`, out));
  else if (value !== null && typeof value === 'object')
    for (const key of Object.keys(value)) pointersOf((value as Record<string, unknown>)[key], `${prefix}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, out);
  return out;
}

const documentArb = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.constant(JSON.parse('{"__proto__":{"a":1},"list":[1,2,3],"~a/b":{"c":null}}') as unknown) },
  { weight: 1, arbitrary: nastyValue },
);

const operationArb = (pointers: string[]) => {
  const pointer = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...pointers) },
    { weight: 2, arbitrary: fc.constantFrom(...pointers).map((base) => `${base}/-`) },
    { weight: 1, arbitrary: fc.constantFrom('', '/', 'x', '/~', '/~2', '/01', '/-1', '/99999999999', '/__proto__/polluted') },
    { weight: 1, arbitrary: fc.string({ maxLength: 10 }) },
  );
  return fc.record(
    {
      op: fc.oneof(
        { weight: 9, arbitrary: fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test') },
        { weight: 1, arbitrary: fc.constantFrom('bogus', '', 'ADD') },
      ),
      path: fc.oneof({ weight: 9, arbitrary: pointer }, { weight: 1, arbitrary: nastyValue }),
      from: pointer,
      value: fc.oneof(fc.jsonValue({ maxDepth: 3 }), nastyValue),
    },
    { requiredKeys: ['op', 'path'] },
  );
};

const patchInput = documentArb.chain((document) =>
  fc.record({ document: fc.constant(document), patch: fc.array(operationArb(pointersOf(document)), { maxLength: 8 }), small: fc.boolean() }),
);

export const jsonPatchTarget = target({
  name: 'agui.jsonPatch',
  weight: 9,
  arbitrary: patchInput,
  property: ({ document, patch, small }) => {
    const limits = small ? { maxOperations: 5, maxDepth: 6, maxChars: 400 } : defaultPatchLimits;
    const before = JSON.stringify(document);
    const operations = patch as unknown as PatchOperation[];
    const patchBefore = JSON.stringify(operations);
    const result = applyJsonPatch(document as JsonValue, operations, limits);
    check(JSON.stringify(document) === before, 'the input document is never modified');
    check(JSON.stringify(operations) === patchBefore, 'the patch is never modified');
    check(!('polluted' in Object.prototype), 'no prototype pollution');
    if (!result.ok) {
      check(result.operationIndex >= 0 && result.operationIndex <= Math.max(patch.length, limits.maxOperations), `operationIndex ${result.operationIndex}`);
      return;
    }
    const measure = measureJson(result.document, limits);
    check(measure.ok, () => `the patched document is outside the limits: ${!measure.ok && measure.message}`);
    // One operation at a time gives the same document as the whole patch (and the whole patch is atomic).
    let stepwise: JsonValue = document as JsonValue;
    for (const operation of operations) {
      const one = applyJsonPatch(stepwise, [operation], { ...limits, maxChars: Number.MAX_SAFE_INTEGER, maxDepth: 64 });
      check(one.ok, () => `operation ${JSON.stringify(operation).slice(0, 120)} fails alone but not in the patch`);
      stepwise = one.document;
    }
    check(JSON.stringify(stepwise) === JSON.stringify(result.document), 'stepwise and whole-patch results agree');
  },
});

// --- the run model -----------------------------------------------------------------------------

const threadId = 'thread-1';
const big = 'y'.repeat(70_000);
const eventSeeds: Record<string, unknown>[] = [
  { type: 'RUN_STARTED', threadId, runId: 'run-1' },
  { type: 'RUN_STARTED', threadId, runId: 'run-2', parentRunId: 'run-1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Hello ' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: big },
  { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
  { type: 'TEXT_MESSAGE_CHUNK', messageId: 'm-2', role: 'assistant', delta: 'chunk ' },
  { type: 'TEXT_MESSAGE_CHUNK', delta: 'no id' },
  { type: 'TOOL_CALL_START', toolCallId: 't-1', toolCallName: 'deploy', parentMessageId: 'm-1' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '{"stack":' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '"a"}' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: big },
  { type: 'TOOL_CALL_END', toolCallId: 't-1' },
  { type: 'TOOL_CALL_CHUNK', toolCallId: 't-2', toolCallName: 'list', delta: '{"a"' },
  { type: 'TOOL_CALL_RESULT', messageId: 'tm-1', toolCallId: 't-1', content: 'deployed' },
  {
    type: 'TOOL_CALL_RESULT',
    messageId: 'tm-2',
    toolCallId: 't-9',
    content: [
      { type: 'text', text: 'x' },
      { type: 'image', source: { type: 'url', value: 'https://x.example/a.png', mimeType: 'image/png' } },
    ],
  },
  { type: 'REASONING_START', messageId: 'r-span' },
  { type: 'REASONING_MESSAGE_START', messageId: 'r-1', role: 'reasoning' },
  { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'Thinking ' },
  { type: 'REASONING_MESSAGE_END', messageId: 'r-1' },
  { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r-2', delta: 'More ' },
  { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r-1', encryptedValue: 'SECRET' },
  { type: 'REASONING_END', messageId: 'r-span' },
  { type: 'THINKING_START' },
  { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'hmm' },
  { type: 'THINKING_END' },
  { type: 'STATE_SNAPSHOT', snapshot: { count: 1, tags: [] } },
  {
    type: 'STATE_DELTA',
    delta: [
      { op: 'replace', path: '/count', value: 2 },
      { op: 'add', path: '/tags/-', value: 'x' },
    ],
  },
  {
    type: 'STATE_DELTA',
    delta: [
      { op: 'add', path: '/blob', value: big },
      { op: 'copy', from: '/blob', path: '/blob2' },
      { op: 'copy', from: '/blob', path: '/blob3' },
      { op: 'copy', from: '/blob', path: '/blob4' },
    ],
  },
  {
    type: 'MESSAGES_SNAPSHOT',
    messages: [
      { id: 'u-1', role: 'user', content: 'hi' },
      { id: 'a-1', role: 'assistant', content: 'hello', toolCalls: [{ id: 't-5', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { id: 'tm-5', role: 'tool', toolCallId: 't-5', content: 'ok' },
    ],
  },
  { type: 'ACTIVITY_SNAPSHOT', messageId: 'act-1', activityType: 'PLAN', content: { steps: [{ title: 'a', done: false }] } },
  { type: 'ACTIVITY_DELTA', messageId: 'act-1', activityType: 'PLAN', patch: [{ op: 'replace', path: '/steps/0/done', value: true }] },
  { type: 'CUSTOM', name: 'iac-code.pipeline.v1.stack', value: { id: 'stack-a', title: 'Stack A', status: 'CREATE_COMPLETE' } },
  { type: 'CUSTOM', name: 'agentdesk.note', value: { text: 'note' } },
  { type: 'RAW', event: { provider: 'native' } },
  { type: 'STEP_STARTED', stepName: 'plan' },
  { type: 'STEP_FINISHED', stepName: 'plan' },
  { type: 'SUBAGENT_STARTED', subagentRunId: 'sub-1', name: 'researcher', parentToolCallId: 't-1' },
  { type: 'TEXT_MESSAGE_START', messageId: 'm-3', role: 'assistant', subagentRunId: 'sub-1' },
  { type: 'SUBAGENT_FINISHED', subagentRunId: 'sub-1', outcome: { type: 'suspended', interruptIds: ['i-1'] } },
  { type: 'SUBAGENT_ERROR', subagentRunId: 'sub-2', message: 'quota', code: 'quota' },
  { type: 'RUN_FINISHED', threadId, runId: 'run-1' },
  { type: 'RUN_FINISHED', threadId, runId: 'run-1', outcome: { type: 'cancelled' } },
  {
    type: 'RUN_FINISHED',
    threadId,
    runId: 'run-1',
    outcome: {
      type: 'interrupt',
      interrupts: [
        { id: 'i-1', reason: 'confirmation', message: 'Delete?', responseSchema: schemaSeeds[0] },
        { id: 'i-2', reason: 'input_required', expiresAt: '2000-01-01T00:00:00Z' },
      ],
    },
  },
  { type: 'RUN_ERROR', message: 'boom', code: 'internal' },
  { type: 'BOGUS' },
];

type RunStep =
  | { kind: 'event'; event: unknown }
  | { kind: 'begin'; runId: string; statuses: ('resolved' | 'cancelled')[]; payloads: unknown[] }
  | { kind: 'user'; id: string; text: string }
  | { kind: 'dropped' }
  | { kind: 'failed'; code: string };

const runStep: fc.Arbitrary<RunStep> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      event: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...eventSeeds) },
        { weight: 4, arbitrary: mutatedFrom(eventSeeds, 2) },
        { weight: 1, arbitrary: anyJson },
      ),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('begin' as const),
      runId: fc.constantFrom('run-1', 'run-2'),
      statuses: fc.array(fc.constantFrom('resolved' as const, 'cancelled' as const), { maxLength: 3 }),
      payloads: fc.array(anyJson, { maxLength: 3 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('user' as const), id: fc.string({ maxLength: 8 }), text: fc.oneof(fc.string(), fc.constant(big)) }) },
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'dropped' as const }, { kind: 'failed' as const, code: 'http_500' }) },
);

export const runModelTarget = target({
  name: 'agui.runModel',
  weight: 10,
  arbitrary: fc.array(runStep, { maxLength: 30 }),
  property: (steps) => {
    let view: AguiThreadView = beginRun(createThread(threadId), { runId: 'run-1' });
    for (const entry of steps) {
      switch (entry.kind) {
        case 'event':
          view = applyAguiEvent(view, entry.event);
          break;
        case 'begin': {
          const open = openInterrupts(view);
          const resume = open.map((interrupt, index) => ({
            interruptId: interrupt.id,
            status: entry.statuses[index] ?? 'cancelled',
            payload: entry.payloads[index],
          }));
          view = beginRun(view, { runId: entry.runId, resume });
          break;
        }
        case 'user':
          view = addUserMessage(view, { id: entry.id, text: entry.text });
          break;
        case 'dropped':
          view = markStreamDropped(view, 'the stream ended');
          break;
        case 'failed':
          view = markRequestFailed(view, { code: entry.code, message: 'HTTP 500' });
          break;
      }
    }
    check(
      view.items.length <= aguiLimits.items && view.notes.length <= aguiLimits.notes && view.openChunks.length <= aguiLimits.openChunks,
      'the view is bounded',
    );
    check(isJsonSerializable(view), 'the view is JSON');
    // Every view the model can reach is one the persistence layer accepts back (else a restart loses the thread).
    const schema = aguiThreadViewSchema.safeParse(viaJson(view));
    check(schema.success, () => `a reachable view fails the thread file schema: ${JSON.stringify(!schema.success && schema.error.issues[0])}`);
    const restored = restoreThread(serializeThread(view));
    check(restored.ok, () => `serializeThread → restoreThread fails: ${JSON.stringify(!restored.ok && restored.problems[0])}`);
    groupBySubagent(view);
    const messages = historyMessages(view);
    const input = buildRunInput({ threadId, runId: 'run-next', messages, ...(view.state === undefined ? {} : { state: view.state }) });
    check(
      input.ok || input.problems.every((problem) => problem.code === 'run_input_state'),
      () => `the history is not a valid RunAgentInput: ${JSON.stringify(!input.ok && input.problems[0])}`,
    );
  },
});
