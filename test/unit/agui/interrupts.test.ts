import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import {
  buildResume,
  buildRunInput,
  interruptKind,
  isInterruptExpired,
  metadataWords,
  parseForwardedProps,
  summarizeAnswer,
  toAguiInterrupt,
  type AguiInterrupt,
} from '../../../src/shared/agui/interrupts';
import {
  answerSuggestions,
  describeResponseSchema,
  formLimits,
  initialAnswer,
  settleAnswer,
  validateAnswer,
  type ResponseForm,
} from '../../../src/shared/agui/response-form';
import { applyAguiEvent, beginRun, createThread, historyMessages, openInterrupts, toolCallArgs } from '../../../src/shared/agui/run-model';

const now = Date.parse('2026-01-01T12:00:00Z');
const confirmSchema = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, note: { type: 'string', maxLength: 10 } },
  required: ['approved'],
  additionalProperties: false,
};

function interrupt(id: string, extra: Partial<Parameters<typeof toAguiInterrupt>[0]> = {}): AguiInterrupt {
  return toAguiInterrupt({ id, reason: 'confirmation', ...extra }, 'run-1');
}

function form(schema: unknown): ResponseForm {
  const result = describeResponseSchema(schema);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.form;
}

describe('interrupt records', () => {
  it('classifies the known reasons and keeps unknown ones as generic', () => {
    expect(['tool_call', 'input_required', 'confirmation', 'approve_plan'].map(interruptKind)).toEqual([
      'tool_call',
      'input_required',
      'confirmation',
      'generic',
    ]);
  });

  it('parses expiresAt; an unparseable one never expires (AG-UI 1.0)', () => {
    expect(isInterruptExpired(interrupt('a', { expiresAt: '2026-01-01T11:59:59Z' }), now)).toBe(true);
    expect(isInterruptExpired(interrupt('b', { expiresAt: '2026-01-01T12:00:01Z' }), now)).toBe(false);
    const odd = interrupt('c', { expiresAt: 'next tuesday' });
    expect(odd).not.toHaveProperty('expiresAtMs');
    expect(isInterruptExpired(odd, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('keeps what the metadata says in words: a message or reason, and a tool name (as @ag-ui/mastra sends a suspended tool)', () => {
    const mastra = {
      type: 'mastra_suspend',
      toolName: 'transfer_money',
      suspendPayload: { reason: 'Approve sending 100 EUR to Alice?' },
      args: { amount: 100 },
    };
    expect(metadataWords({ mastra })).toEqual({ text: 'Approve sending 100 EUR to Alice?', toolName: 'transfer_money' });
    // A message wins over a reason; a key deeper than three levels, or not a string, is not read.
    expect(metadataWords({ a: { reason: 'second' }, message: 'first' })).toEqual({ text: 'first' });
    expect(metadataWords({ a: { b: { c: { message: 'too deep' } } }, tool_name: 7 })).toEqual({});
    expect(metadataWords(undefined)).toEqual({});
    const raw = { id: 'run-1::transfer-1', reason: 'mastra:tool_suspend', toolCallId: 'transfer-1', metadata: { mastra } };
    expect(toAguiInterrupt(raw, 'run-1')).toMatchObject({
      reason: 'mastra:tool_suspend',
      kind: 'generic',
      detail: 'Approve sending 100 EUR to Alice?',
      toolName: 'transfer_money',
    });
    expect(toAguiInterrupt({ ...raw, message: 'Approve sending 100 EUR to Alice?' }, 'run-1')).not.toHaveProperty('detail');
  });

  it('names the result of a call that was never announced after the tool its interrupt named', () => {
    const threadId = 't';
    const fold = (view: ReturnType<typeof createThread>, runId: string, events: Record<string, unknown>[]) =>
      [{ type: 'RUN_STARTED', threadId, runId }, ...events].reduce((current, event) => applyAguiEvent(current, event), beginRun(view, { runId }));
    const mastra = { toolName: 'transfer_money', suspendPayload: { reason: 'Approve?' } };
    const asked = fold(createThread(threadId), 'run-1', [
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: 'run-1',
        outcome: { type: 'interrupt', interrupts: [{ id: 'i', reason: 'mastra:tool_suspend', toolCallId: 'transfer-1', metadata: { mastra } }] },
      },
    ]);
    const done = fold(asked, 'run-2', [
      { type: 'TOOL_CALL_RESULT', toolCallId: 'transfer-1', messageId: 'm', content: '{"sent":true}', role: 'tool' },
      { type: 'TOOL_CALL_RESULT', toolCallId: 'other', messageId: 'm2', content: 'x', metadata: { tool_name: 'lookup' } },
      { type: 'TOOL_CALL_RESULT', toolCallId: 'unknown', messageId: 'm3', content: 'y' },
      { type: 'RUN_FINISHED', threadId, runId: 'run-2' },
    ]);
    expect(done.items.filter((item) => item.kind === 'toolCall').map((item) => [item.id, item.kind === 'toolCall' ? item.name : ''])).toEqual([
      ['transfer-1', 'transfer_money'],
      ['other', 'lookup'],
      ['unknown', ''],
    ]);
  });
});

describe('buildResume', () => {
  const open = [
    interrupt('confirm', { responseSchema: confirmSchema }),
    interrupt('question', { reason: 'input_required' }),
    interrupt('late', { expiresAt: '2026-01-01T11:00:00Z', responseSchema: confirmSchema }),
  ];

  it('answers every open interrupt in order: resolved with payload, cancelled, expired → cancelled', () => {
    const result = buildResume(
      open,
      {
        confirm: { status: 'resolved', payload: { approved: true } },
        question: { status: 'cancelled' },
        late: { status: 'resolved', payload: { approved: true } },
      },
      now,
    );
    expect(result).toEqual({
      ok: true,
      expired: ['late'],
      resume: [
        { interruptId: 'confirm', status: 'resolved', payload: { approved: true } },
        { interruptId: 'question', status: 'cancelled' },
        { interruptId: 'late', status: 'cancelled' },
      ],
    });
  });

  it('an expired interrupt needs no answer', () => {
    const result = buildResume(open, { confirm: { status: 'cancelled' }, question: { status: 'cancelled' } }, now);
    expect(result.ok && result.resume.map((entry) => entry.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });

  it('refuses a missing answer, an unknown id and a payload that breaks the schema', () => {
    const result = buildResume(open, { confirm: { status: 'resolved', payload: { approved: 'yes', extra: 1 } }, stranger: { status: 'cancelled' } }, now);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['resume_unknown_interrupt', '/stranger'],
      ['resume_invalid_payload', '/confirm/approved'],
      ['resume_invalid_payload', '/confirm/extra'],
      ['resume_missing_answer', '/question'],
    ]);
  });

  // Found by `npm run fuzz` (agui.interrupts): an answer that is not an object (null) threw a TypeError.
  it.each([null, 'resolved', 42, []])('refuses an answer that is not an object (%j) with resume_invalid_answer', (answer) => {
    const result = buildResume([interrupt('confirm')], { confirm: answer as never }, now);
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'resume_invalid_answer', path: '/confirm' }] });
  });

  // Found by `npm run fuzz` (agui.interrupts): a resolved answer with payload null passed, then the
  // run could not be sent (AG-UI's RunAgentInput refuses a null payload).
  it('refuses a resolved answer whose payload is null, before a run is built', () => {
    const result = buildResume([interrupt('question')], { question: { status: 'resolved', payload: null } }, now);
    expect(result).toMatchObject({ ok: false, problems: [{ code: 'resume_invalid_payload', path: '/question' }] });
  });

  it('ignores interrupts that are no longer open', () => {
    const closed = { ...interrupt('old'), status: 'resolved' as const };
    expect(buildResume([closed], {}, now)).toEqual({ ok: true, resume: [], expired: [] });
  });
});

describe('buildRunInput', () => {
  it('builds a valid RunAgentInput: same thread, new run, history, state, forwardedProps, resume', () => {
    let view = beginRun(createThread('t'), { runId: 'r1' });
    view = applyAguiEvent(view, { type: 'RUN_STARTED', threadId: 't', runId: 'r1' });
    view = applyAguiEvent(view, { type: 'STATE_SNAPSHOT', snapshot: { stage: 'review' } });
    view = applyAguiEvent(view, {
      type: 'RUN_FINISHED',
      threadId: 't',
      runId: 'r1',
      outcome: { type: 'interrupt', interrupts: [{ id: 'i', reason: 'confirmation', responseSchema: confirmSchema }] },
    });
    const resume = buildResume(openInterrupts(view), { i: { status: 'resolved', payload: { approved: false, note: 'no' } } }, now);
    if (!resume.ok) throw new Error('resume');
    const forwarded = parseForwardedProps('{"iacCode":{"schemaVersion":1,"cwd":"/work/project","runMode":"normal"}}');
    if (!forwarded.ok) throw new Error('props');
    const result = buildRunInput({
      threadId: view.threadId,
      runId: 'r2',
      messages: historyMessages(view),
      state: view.state,
      forwardedProps: forwarded.value,
      resume: resume.resume,
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.input).toEqual({
      threadId: 't',
      runId: 'r2',
      protocolVersion: '1.0',
      state: { stage: 'review' },
      messages: [],
      tools: [],
      context: [],
      forwardedProps: { iacCode: { schemaVersion: 1, cwd: '/work/project', runMode: 'normal' } },
      resume: [{ interruptId: 'i', status: 'resolved', payload: { approved: false, note: 'no' } }],
    });
    expect(RunAgentInputSchema.safeParse(JSON.parse(JSON.stringify(result.input))).success).toBe(true);
  });

  it('always sends state and forwardedProps ({} when none), as @ag-ui/client does: some servers’ input checks require them (the official Python SDK, ag-ui-protocol 0.1.20, forwardedProps)', () => {
    const result = buildRunInput({ threadId: 't', runId: 'r', messages: [] });
    expect(result.ok && result.input).toEqual({
      threadId: 't',
      runId: 'r',
      protocolVersion: '1.0',
      state: {},
      messages: [],
      tools: [],
      context: [],
      forwardedProps: {},
    });
  });

  it('refuses bad ids, duplicate resume entries, oversized forwardedProps and malformed messages', () => {
    const bad = buildRunInput({
      threadId: '',
      runId: 'r',
      messages: [],
      forwardedProps: { blob: 'x'.repeat(70_000) },
      resume: [
        { interruptId: 'a', status: 'cancelled' },
        { interruptId: 'a', status: 'cancelled' },
      ],
    });
    expect(!bad.ok && bad.problems.map((problem) => problem.code)).toEqual(['run_input_invalid_id', 'run_input_forwarded_props', 'run_input_duplicate_resume']);
    const malformed = buildRunInput({ threadId: 't', runId: 'r', messages: [{ id: 'm', role: 'wizard', content: 'x' } as never] });
    expect(!malformed.ok && malformed.problems[0]).toMatchObject({ code: 'run_input_invalid', path: expect.stringContaining('/messages/0') });
  });

  it('parses user-edited forwardedProps with stable codes', () => {
    expect(parseForwardedProps('')).toEqual({ ok: true, value: {} });
    expect(parseForwardedProps('{nope')).toMatchObject({ ok: false, problems: [{ code: 'forwarded_props_not_json' }] });
    expect(parseForwardedProps('[1]')).toMatchObject({ ok: false, problems: [{ code: 'forwarded_props_not_object' }] });
    expect(parseForwardedProps(`{"a":${'['.repeat(20)}${']'.repeat(20)}}`)).toMatchObject({ ok: false, problems: [{ code: 'forwarded_props_too_large' }] });
  });
});

describe('responseSchema → form fields', () => {
  it('describes strings (enum, format, lengths), numbers, integers, booleans, nested objects and multiple choice', () => {
    const described = form({
      title: 'Deploy settings',
      type: 'object',
      required: ['region', 'replicas'],
      properties: {
        region: { type: 'string', enum: ['eu', 'us'], title: 'Region' },
        contact: { type: 'string', format: 'email', maxLength: 100 },
        replicas: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
        ratio: { type: 'number', exclusiveMaximum: 1 },
        force: { type: 'boolean', description: 'Skip checks' },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, uniqueItems: true, maxItems: 2 },
        owner: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
      },
    });
    expect(described.title).toBe('Deploy settings');
    expect(described.root.kind).toBe('object');
    if (described.root.kind !== 'object') return;
    expect(described.root.fields).toEqual([
      { key: 'region', path: '/region', label: 'Region', required: true, kind: 'string', enum: ['eu', 'us'] },
      { key: 'contact', path: '/contact', label: 'contact', required: false, kind: 'string', format: 'email', maxLength: 100 },
      { key: 'replicas', path: '/replicas', label: 'replicas', required: true, kind: 'number', integer: true, minimum: 1, maximum: 5, default: 2 },
      { key: 'ratio', path: '/ratio', label: 'ratio', required: false, kind: 'number', integer: false, exclusiveMaximum: 1 },
      { key: 'force', path: '/force', label: 'force', description: 'Skip checks', required: false, kind: 'boolean' },
      { key: 'tags', path: '/tags', label: 'tags', required: false, kind: 'choices', options: ['a', 'b', 'c'], uniqueItems: true, maxItems: 2 },
      {
        key: 'owner',
        path: '/owner',
        label: 'owner',
        required: false,
        kind: 'object',
        additionalProperties: true,
        fields: [{ key: 'name', path: '/owner/name', label: 'name', required: true, kind: 'string', minLength: 1 }],
      },
    ]);
    expect(initialAnswer(described)).toEqual({ replicas: 2, force: false, tags: [], owner: {} });
  });

  it('a primitive root is a single field; local $refs are followed', () => {
    expect(form({ type: 'string', enum: ['yes', 'no'] }).root).toMatchObject({ kind: 'string', key: '', path: '', enum: ['yes', 'no'] });
    const withRef = form({ type: 'object', properties: { size: { $ref: '#/$defs/size' } }, $defs: { size: { type: 'string', enum: ['S', 'M'] } } });
    expect(withRef.root.kind === 'object' && withRef.root.fields[0]).toMatchObject({ key: 'size', kind: 'string', enum: ['S', 'M'] });
  });

  it('refuses what it cannot show, with stable codes and the schema pointer', () => {
    const cases: [unknown, string, string][] = [
      [{ type: 'object', properties: { a: { $ref: 'https://evil.example/schema.json' } } }, 'schema_remote_ref', '/properties/a/$ref'],
      [{ type: 'object', properties: { a: { $ref: '#/$defs/a' } }, $defs: { a: { $ref: '#/$defs/a' } } }, 'schema_ref_loop', '/properties/a/$ref'],
      [{ type: 'object', properties: { a: { oneOf: [{ type: 'string' }] } } }, 'schema_unsupported', '/properties/a/oneOf'],
      [{ type: 'array', items: { type: 'object' } }, 'schema_unsupported', '/items'],
      [
        { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'object' } } } } } } },
        'schema_unsupported',
        '/properties/a/properties/b/properties/c',
      ],
      [
        { type: 'object', properties: Object.fromEntries(Array.from({ length: formLimits.fields + 1 }, (_, index) => [`f${index}`, { type: 'string' }])) },
        'schema_too_large',
        `/properties/f${formLimits.fields - 1}`,
      ],
      [{ type: 'string', enum: [] }, 'schema_invalid', '/enum'],
      [[], 'schema_not_object', ''],
    ];
    for (const [schema, code, path] of cases) {
      const result = describeResponseSchema(schema);
      expect(result.ok ? [] : result.problems[0]).toMatchObject({ code, path });
    }
  });
});

describe('validateAnswer', () => {
  const settings = form({
    type: 'object',
    required: ['region', 'count'],
    additionalProperties: false,
    properties: {
      region: { type: 'string', enum: ['eu', 'us'] },
      count: { type: 'integer', minimum: 1, maximum: 3 },
      email: { type: 'string', format: 'email' },
      when: { type: 'string', format: 'date-time' },
      site: { type: 'string', format: 'uri' },
      tags: { type: 'array', items: { enum: ['a', 'b'] }, uniqueItems: true, minItems: 1 },
      ok: { type: 'boolean' },
    },
  });

  it('accepts a good answer', () => {
    expect(
      validateAnswer(settings, { region: 'eu', count: 2, email: 'a@b.co', when: '2026-01-01T10:00:00Z', site: 'https://example.com', tags: ['a'], ok: true }),
    ).toEqual([]);
  });

  it('reports each problem at its pointer with a stable code', () => {
    const problems = validateAnswer(settings, {
      region: 'mars',
      count: 2.5,
      email: 'nope',
      when: 'tomorrow',
      site: 'not a url',
      tags: ['a', 'a', 'z'],
      ok: 'yes',
      extra: 1,
    });
    expect(problems.map((problem) => [problem.code, problem.path])).toEqual([
      ['answer_not_allowed', '/region'],
      ['answer_type', '/count'],
      ['answer_format', '/email'],
      ['answer_format', '/when'],
      ['answer_format', '/site'],
      ['answer_not_allowed', '/tags'],
      ['answer_duplicate', '/tags'],
      ['answer_type', '/ok'],
      ['answer_unknown_field', '/extra'],
    ]);
    expect(validateAnswer(settings, {}).map((problem) => problem.code)).toEqual(['answer_required', 'answer_required']);
    expect(validateAnswer(settings, { region: 'eu', count: 9 }).map((problem) => problem.code)).toEqual(['answer_out_of_range']);
    expect(validateAnswer(settings, 'a string').map((problem) => problem.code)).toEqual(['answer_type']);
  });

  it('bounds the answer itself', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 20; level++) deep = [deep];
    expect(validateAnswer(settings, deep).map((problem) => problem.code)).toEqual(['answer_too_large']);
    expect(validateAnswer(form({ type: 'string' }), 'x'.repeat(100_000)).map((problem) => problem.code)).toEqual(['answer_too_large']);
  });
});

describe('settleAnswer: only what the user set, plus what is required or has a default', () => {
  // pydantic-ai 2.33's tool approval: editedArgs REPLACES the call's arguments.
  const pydanticApproval = form({
    type: 'object',
    properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object' }, reason: { type: 'string' } },
    required: ['approved'],
  });
  const demoApproval = form({
    type: 'object',
    properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object', properties: { path: { type: 'string' } } } },
    required: ['approved'],
  });
  const args = { path: 'notes/old-plan.md' };

  it('approving a tool call without editing sends {"approved": true}: no empty editedArgs replaces the arguments', () => {
    for (const approval of [pydanticApproval, demoApproval]) {
      const suggestions = answerSuggestions(approval, args);
      expect(suggestions).toEqual({ '/editedArgs': args });
      const shown = initialAnswer(approval, suggestions);
      expect(shown).toMatchObject({ approved: false, editedArgs: args });
      expect(settleAnswer(approval, { ...(shown as object), approved: true }, suggestions)).toEqual({ approved: true });
      // Without known arguments there is nothing to start from, and still no editedArgs.
      expect(settleAnswer(approval, { ...(initialAnswer(approval) as object), approved: true })).toEqual({ approved: true });
      // Declining sends the required field as it is.
      expect(settleAnswer(approval, shown, suggestions)).toEqual({ approved: false });
    }
  });

  it('edited arguments are sent whole, with keys of the call the form does not show', () => {
    const wide = { path: 'notes/old-plan.md', recursive: true };
    const suggestions = answerSuggestions(demoApproval, wide);
    expect(settleAnswer(demoApproval, { approved: true, editedArgs: { path: 'new' } }, suggestions)).toEqual({
      approved: true,
      editedArgs: { path: 'new', recursive: true },
    });
    expect(settleAnswer(pydanticApproval, { approved: true, editedArgs: { path: 'new' } }, answerSuggestions(pydanticApproval, args))).toEqual({
      approved: true,
      editedArgs: { path: 'new' },
    });
    // Edited back to what it was: unchanged, so absent.
    expect(settleAnswer(demoApproval, { approved: true, editedArgs: { path: 'notes/old-plan.md' } }, suggestions)).toEqual({ approved: true });
    // The transcript's record of the answer: edited arguments by field, or as JSON for an open object.
    expect(
      summarizeAnswer(
        {
          responseSchema: {
            type: 'object',
            properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object', title: 'Edited arguments', properties: { path: { type: 'string' } } } },
          },
        },
        { approved: true, editedArgs: { path: 'new' } },
      ),
    ).toEqual([
      { label: 'approved', value: true },
      { label: 'Edited arguments › path', value: 'new' },
    ]);
    expect(summarizeAnswer({ responseSchema: { type: 'object', properties: { editedArgs: { type: 'object' } } } }, { editedArgs: { path: 'new' } })).toEqual([
      { label: 'editedArgs', value: '{"path":"new"}' },
    ]);
    // No editedArgs field, or a primitive one: no suggestion.
    expect(answerSuggestions(form(confirmSchema), args)).toEqual({});
    expect(answerSuggestions(form({ type: 'object', properties: { editedArgs: { type: 'string' } } }), args)).toEqual({});
  });

  it('keeps defaults and required fields, drops untouched optional ones at every depth', () => {
    const settings = form({
      type: 'object',
      required: ['region', 'target'],
      properties: {
        region: { type: 'string', enum: ['eu', 'us'] },
        replicas: { type: 'integer', default: 2 },
        force: { type: 'boolean' },
        dryRun: { type: 'boolean', default: true },
        note: { type: 'string' },
        tags: { type: 'array', items: { enum: ['a', 'b'] } },
        picked: { type: 'array', items: { enum: ['a', 'b'] }, default: ['b'] },
        target: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, zone: { type: 'string' } } },
        extras: {
          type: 'object',
          required: ['owner'],
          properties: { owner: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } }, level: { type: 'integer', default: 1 } },
        },
      },
    });
    const shown = initialAnswer(settings) as Record<string, unknown>;
    expect(shown).toEqual({ replicas: 2, force: false, dryRun: true, tags: [], picked: ['b'], target: {}, extras: { owner: {}, level: 1 } });
    // Nothing touched: defaults, the required object (its missing required name is for the validator).
    expect(settleAnswer(settings, { ...shown, region: 'eu' })).toEqual({ region: 'eu', replicas: 2, dryRun: true, picked: ['b'], target: {} });
    // An optional object with a default inside and a required object inside stays absent until one of its fields is set…
    const touched = settleAnswer(settings, {
      ...shown,
      region: 'eu',
      force: true,
      tags: ['a'],
      target: { name: 'web' },
      extras: { owner: { id: 'me' }, level: 1 },
    });
    expect(touched).toEqual({
      region: 'eu',
      replicas: 2,
      force: true,
      dryRun: true,
      tags: ['a'],
      picked: ['b'],
      target: { name: 'web' },
      extras: { owner: { id: 'me' }, level: 1 },
    });
    // …and then carries its defaults; a default changed by the user is sent as changed, a default cleared is left out.
    expect(settleAnswer(settings, { region: 'us', replicas: 3, dryRun: false, picked: [], target: { name: 'x' }, extras: { owner: {}, level: 4 } })).toEqual({
      region: 'us',
      replicas: 3,
      dryRun: false,
      picked: [],
      target: { name: 'x' },
      extras: { owner: {}, level: 4 },
    });
    // Clearing a default is a change too: the object it is in is then sent, without it.
    expect(settleAnswer(settings, { region: 'us', target: {}, extras: { owner: {} } })).toEqual({ region: 'us', target: {}, extras: { owner: {} } });
    expect(validateAnswer(settings, settleAnswer(settings, { ...shown, region: 'eu' })).map((problem) => [problem.code, problem.path])).toEqual([
      ['answer_required', '/target/name'],
    ]);
  });

  it('a single-value root is always sent; a free JSON object field is edited as JSON and validated as an object', () => {
    expect(settleAnswer(form({ type: 'string' }), '')).toBe('');
    expect(settleAnswer(form({ type: 'boolean' }), false)).toBe(false);
    const free = form({ type: 'object', properties: { options: { type: 'object', default: { a: 1 } } } });
    expect(free.root.kind === 'object' && free.root.fields[0]).toMatchObject({ kind: 'json', default: { a: 1 } });
    expect(settleAnswer(free, initialAnswer(free))).toEqual({ options: { a: 1 } });
    expect(validateAnswer(free, { options: 'not json' }).map((problem) => problem.code)).toEqual(['answer_type']);
  });

  it('toolCallArgs reads the streamed arguments of a call (whole JSON objects only)', () => {
    let view = beginRun(createThread('t'), { runId: 'r' });
    for (const event of [
      { type: 'RUN_STARTED', threadId: 't', runId: 'r' },
      { type: 'TOOL_CALL_START', toolCallId: 'c1', toolCallName: 'delete_file' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '{"path":' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c1', delta: '"notes/old-plan.md"}' },
      { type: 'TOOL_CALL_END', toolCallId: 'c1' },
      { type: 'TOOL_CALL_START', toolCallId: 'c2', toolCallName: 'other' },
      { type: 'TOOL_CALL_ARGS', toolCallId: 'c2', delta: '[1,2]' },
      { type: 'TOOL_CALL_END', toolCallId: 'c2' },
    ])
      view = applyAguiEvent(view, event);
    expect(toolCallArgs(view, 'c1')).toEqual({ path: 'notes/old-plan.md' });
    expect(toolCallArgs(view, 'c2')).toBeUndefined();
    expect(toolCallArgs(view, 'nope')).toBeUndefined();
  });
});
