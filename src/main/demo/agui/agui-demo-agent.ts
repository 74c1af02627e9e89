import { contentToText, EventType, PROTOCOL_VERSION, type Event, type RunAgentInput } from '@ag-ui/core';
import { randomUUID } from 'node:crypto';
import { pointer, type Problem } from '../../../shared/talkie/problems';
import type { ConfirmationAnswer, InterruptLedger, InterruptSubject } from './agui-demo-interrupts';

/**
 * The built-in demo agent's plain AG-UI side: the behaviour of one run, no I/O. The server
 * (agui-demo-server.ts) validates the RunAgentInput with @ag-ui/core's schema, asks `checkDemoInput`
 * for the demo's own rules, then writes what `runAguiDemo` yields as SSE. Modelled on an iac-code
 * AG-UI adapter: pipeline steps, reasoning, a plan tool, policy checks as an activity, and a
 * confirmation interrupt before anything changes. Fixed rules, no model, nothing stored.
 *
 * Stateless per run: the client sends the whole history (same threadId, new runId); the agent reads
 * only the last user message (and counts the history), or the `resume` list when there is one.
 *
 * Triggers in the last user message (whole words, any case):
 * - "deploy": two confirmation interrupts (staging, production), each to be answered;
 * - "apply": one confirmation interrupt (the demo-network stack);
 * - "delete": a `delete_file({"path": "notes/old-plan.md"})` call and its tool approval, shaped as
 *   pydantic-ai's AG-UI adapter raises one (reason "tool_call", `editedArgs` REPLACES the
 *   arguments: an `editedArgs: {}` deletes without a path, and the call fails);
 * - "slow": one more text message streamed over ~5 s (heartbeats meanwhile);
 * - "fail": RUN_ERROR `demo_failure` after the plan step.
 * forwardedProps: `iacCode.cwd` is echoed (the plan step's metadata.label, the state, the tool
 * arguments); `demo.framing: "crlf"` asks the server for CRLF framing.
 * Client-defined `tools` are refused (400), as iac-code does.
 */

export const aguiDemoTriggers = { deploy: 'deploy', apply: 'apply', delete: 'delete', slow: 'slow', fail: 'fail' } as const;
/** The file the "delete" trigger asks to delete. */
export const aguiDemoDeletePath = 'notes/old-plan.md';
export const aguiDemoStack = 'demo-network';
export const aguiDemoEnvironments = ['staging', 'production'] as const;
export const maxUserMessageChars = 4000;
export const maxHistoryMessages = 1000;
export const maxCwdChars = 1024;
/** How long the slow trigger streams (ms, before timeScale). */
export const slowRunMs = 5000;

export type SseFraming = 'lf' | 'crlf';

export interface DemoRunSettings {
  framing: SseFraming;
  cwd?: string;
}

export interface AguiDemoContext {
  ledger: InterruptLedger;
  /** Waits ms (scaled by the server's timeScale); rejects once the client has gone away. */
  sleep(ms: number): Promise<void>;
  /** Epoch ms, for event timestamps (the server's clock, injectable in tests). */
  now(): number;
}

/**
 * The demo's rules beyond the RunAgentInput schema, as Problems with stable codes (the server
 * answers 400 with them before any stream opens). Returns the settings read from forwardedProps.
 */
export function checkDemoInput(input: RunAgentInput): { ok: true; settings: DemoRunSettings } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const add = (code: string, path: (string | number)[], message: string) => problems.push({ code, path: pointer(path), message });
  for (const key of ['threadId', 'runId'] as const) {
    // eslint-disable-next-line no-control-regex
    if (input[key] === '' || input[key].length > 200 || /[\u0000-\u001f\u007f]/.test(input[key]))
      add('invalid_id', [key], `${key} must be 1–200 printable characters.`);
  }
  if (input.messages.length > maxHistoryMessages) add('too_many_messages', ['messages'], `The demo reads at most ${maxHistoryMessages} messages of history.`);
  if (input.tools.length > 0) add('tools_not_supported', ['tools'], 'The demo agent has its own tools; client-defined tools are not accepted.');

  let framing: SseFraming = 'lf';
  let cwd: string | undefined;
  const props = input.forwardedProps as unknown;
  if (props !== undefined && !isRecord(props)) add('invalid_forwarded_props', ['forwardedProps'], 'forwardedProps must be a JSON object.');
  if (isRecord(props)) {
    const demo = props.demo;
    if (demo !== undefined && !isRecord(demo)) add('invalid_forwarded_props', ['forwardedProps', 'demo'], 'forwardedProps.demo must be an object.');
    if (isRecord(demo) && demo.framing !== undefined) {
      if (demo.framing === 'lf' || demo.framing === 'crlf') framing = demo.framing;
      else add('invalid_framing', ['forwardedProps', 'demo', 'framing'], 'forwardedProps.demo.framing must be "lf" or "crlf".');
    }
    const iacCode = props.iacCode;
    if (iacCode !== undefined && !isRecord(iacCode)) add('invalid_forwarded_props', ['forwardedProps', 'iacCode'], 'forwardedProps.iacCode must be an object.');
    if (isRecord(iacCode) && iacCode.cwd !== undefined) {
      const value = iacCode.cwd;
      // eslint-disable-next-line no-control-regex
      if (typeof value !== 'string' || value === '' || value.length > maxCwdChars || /[\u0000-\u001f\u007f]/.test(value)) {
        add('invalid_cwd', ['forwardedProps', 'iacCode', 'cwd'], `forwardedProps.iacCode.cwd must be a path of 1–${maxCwdChars} printable characters.`);
      } else {
        cwd = value;
      }
    }
  }

  if (!isResume(input)) {
    const last = input.messages.at(-1);
    if (!last || last.role !== 'user') {
      add('no_user_message', ['messages'], "The last message must be the user's (or send resume[] to answer interrupts).");
    } else {
      const text = contentToText(last.content);
      if (text.trim() === '') add('empty_message', ['messages', input.messages.length - 1, 'content'], 'The last user message has no text.');
      if ([...text].length > maxUserMessageChars) {
        add('message_too_long', ['messages', input.messages.length - 1, 'content'], `A message can have at most ${maxUserMessageChars} characters.`);
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, settings: { framing, ...(cwd === undefined ? {} : { cwd }) } };
}

/** A run that answers interrupts: a non-empty resume list (an empty one answers nothing). */
export function isResume(input: RunAgentInput): boolean {
  return (input.resume?.length ?? 0) > 0;
}

/** The events of one run, in order, paced with context.sleep. Ends with RUN_FINISHED or RUN_ERROR. */
export async function* runAguiDemo(input: RunAgentInput, settings: DemoRunSettings, context: AguiDemoContext): AsyncGenerator<Event> {
  const at = <E extends Event>(event: E): E => ({ ...event, timestamp: Math.floor(context.now()) });
  const { threadId, runId } = input;

  if (isResume(input)) {
    const check = context.ledger.accept(threadId, input.resume ?? []);
    if (!check.ok) {
      // Refused before the run starts (AG-UI: "a stream opening with RUN_ERROR"): nothing happened.
      yield at({ type: EventType.RUN_ERROR, code: check.code, message: check.message });
      return;
    }
    yield at({ type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION });
    const toolAnswer = check.answers.find((answer) => answer.tool !== undefined);
    if (toolAnswer?.tool !== undefined) yield* resumedTool({ ...toolAnswer, tool: toolAnswer.tool }, at);
    else yield* resumed(check.answers, settings, context, at);
    const applied = check.answers.filter((answer) => answer.approved).map((answer) => answer.subject);
    const cancelled = check.answers.filter((answer) => !answer.approved).map((answer) => answer.subject);
    yield at({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'success' }, result: { applied, cancelled } });
    return;
  }

  const last = input.messages.at(-1);
  const text = last && last.role === 'user' ? contentToText(last.content) : '';
  const words = new Set(text.toLowerCase().match(/[a-z]+/g) ?? []);
  const deploy = words.has(aguiDemoTriggers.deploy);
  const change = deploy || words.has(aguiDemoTriggers.apply);
  const turn = input.messages.filter((message) => message.role === 'user').length;
  const where = settings.cwd ?? '(no forwardedProps.iacCode.cwd)';
  const target = deploy ? 'demo-app' : aguiDemoStack;

  yield at({ type: EventType.RUN_STARTED, threadId, runId, protocolVersion: PROTOCOL_VERSION });
  yield at({ type: EventType.STATE_SNAPSHOT, snapshot: { stack: target, cwd: settings.cwd ?? null, status: 'planning', turn } });
  await context.sleep(40);

  // Reasoning: one span, one streamed reasoning message, and an opaque value a client must never show.
  const span = id('rsn');
  const thought = id('rsn_msg');
  yield at({ type: EventType.REASONING_START, messageId: span });
  yield at({ type: EventType.REASONING_MESSAGE_START, messageId: thought, role: 'reasoning' });
  const deleting = words.has(aguiDemoTriggers.delete) && !change;
  const reasoning = deleting
    ? ['The user wants ', 'a file deleted, so I ask ', 'before deleting it.']
    : [
        'The user wants ',
        change ? 'a change, so I plan it, check it ' : 'to know what would change, so I plan ',
        change ? 'and ask before applying.' : 'and check without applying.',
      ];
  for (const delta of reasoning) {
    yield at({ type: EventType.REASONING_MESSAGE_CONTENT, messageId: thought, delta });
    await context.sleep(30);
  }
  yield at({ type: EventType.REASONING_MESSAGE_END, messageId: thought });
  yield at({ type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'message', entityId: thought, encryptedValue: encryptedReasoning });
  yield at({ type: EventType.REASONING_END, messageId: span });

  if (deleting) {
    yield* deleteFile(threadId, runId, context, at);
    return;
  }

  // Step "plan": a tool call whose arguments arrive in pieces, then its result.
  yield at({ type: EventType.STEP_STARTED, stepName: 'plan', metadata: { label: `Plan ${target} in ${where}` } });
  const plan = id('tool');
  const args = JSON.stringify({ stack: target, cwd: settings.cwd ?? null, refresh: true });
  yield at({ type: EventType.TOOL_CALL_START, toolCallId: plan, toolCallName: 'iac_plan' });
  for (const piece of split(args, 3)) {
    yield at({ type: EventType.TOOL_CALL_ARGS, toolCallId: plan, delta: piece });
    await context.sleep(30);
  }
  yield at({ type: EventType.TOOL_CALL_END, toolCallId: plan });
  await context.sleep(60);
  const summary = { stack: target, add: 1, change: 1, destroy: 0, resources: ['vpc.demo (change)', 'vswitch.demo-b (add)'] };
  yield at({ type: EventType.TOOL_CALL_RESULT, messageId: id('tool_msg'), toolCallId: plan, role: 'tool', content: JSON.stringify(summary) });
  yield at({ type: EventType.STEP_FINISHED, stepName: 'plan' });

  if (words.has(aguiDemoTriggers.fail)) {
    yield at({
      type: EventType.RUN_ERROR,
      code: 'demo_failure',
      message: 'The demo failed on purpose after planning ("fail" was in the message). Nothing was changed.',
    });
    return;
  }

  // Step "check": policy checks as an activity panel, updated by a JSON Patch; the state follows.
  yield at({ type: EventType.STEP_STARTED, stepName: 'check', metadata: { label: 'Policy checks' } });
  const activity = id('act');
  yield at({
    type: EventType.ACTIVITY_SNAPSHOT,
    messageId: activity,
    activityType: 'iac-code.checks',
    content: {
      title: 'Policy checks',
      checks: [
        { name: 'naming', status: 'running' },
        { name: 'cost', status: 'pending' },
      ],
    },
  });
  await context.sleep(60);
  yield at({
    type: EventType.ACTIVITY_DELTA,
    messageId: activity,
    activityType: 'iac-code.checks',
    patch: [
      { op: 'replace', path: '/checks/0/status', value: 'passed' },
      { op: 'replace', path: '/checks/1/status', value: 'passed' },
      { op: 'add', path: '/checks/-', value: { name: 'estimate', status: 'passed', detail: '+0.40 USD/month' } },
    ],
  });
  yield at({
    type: EventType.STATE_DELTA,
    delta: [
      { op: 'replace', path: '/status', value: 'checked' },
      { op: 'add', path: '/plan', value: { add: 1, change: 1, destroy: 0 } },
    ],
  });
  yield at({ type: EventType.STEP_FINISHED, stepName: 'check' });

  // The answer, streamed.
  const answer = id('msg');
  const history = turn === 1 ? 'This is the first message of the thread.' : `This thread has ${turn} user messages so far (the client sent the history).`;
  const body = change
    ? `The plan for **${target}** adds 1 resource and changes 1; nothing is destroyed. ${history} I need your confirmation before applying.`
    : `The plan for **${target}** adds 1 resource and changes 1; nothing is destroyed. ${history} Say "apply" (or "deploy") to change it.`;
  yield at({ type: EventType.TEXT_MESSAGE_START, messageId: answer, role: 'assistant' });
  for (const piece of split(body, 4)) {
    yield at({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: answer, delta: piece });
    await context.sleep(30);
  }
  yield at({ type: EventType.TEXT_MESSAGE_END, messageId: answer });

  if (words.has(aguiDemoTriggers.slow)) {
    const slow = id('msg');
    const pieces = 25;
    yield at({ type: EventType.TEXT_MESSAGE_START, messageId: slow, role: 'assistant' });
    for (let index = 1; index <= pieces; index += 1) {
      await context.sleep(slowRunMs / pieces);
      yield at({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: slow, delta: index === 1 ? 'Slowly: ' : index === pieces ? 'done.' : '· ' });
    }
    yield at({ type: EventType.TEXT_MESSAGE_END, messageId: slow });
  }

  if (change) yield at({ type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/status', value: 'awaiting_confirmation' }] });

  // One message in the chunked form: an opening chunk and a continuation; RUN_FINISHED closes it.
  const tip = id('msg');
  yield at({ type: EventType.TEXT_MESSAGE_CHUNK, messageId: tip, role: 'assistant', delta: 'Tip: the checks panel above ' });
  yield at({ type: EventType.TEXT_MESSAGE_CHUNK, delta: 'was filled in by a JSON Patch.' });

  if (!change) {
    yield at({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'success' } });
    return;
  }
  const subjects: InterruptSubject[] = deploy
    ? aguiDemoEnvironments.map((environment) => ({ subject: environment, message: `Deploy demo-app to ${environment}? 1 to add, 1 to change, 0 to destroy.` }))
    : [{ subject: aguiDemoStack, message: `Apply the plan to ${aguiDemoStack}? 1 to add, 1 to change, 0 to destroy.` }];
  yield at({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts: context.ledger.issue(threadId, subjects) } });
}

/** The "delete" trigger: the delete_file call streamed, a line of text, and the run ends asking for the tool approval. */
async function* deleteFile(threadId: string, runId: string, context: AguiDemoContext, at: <E extends Event>(event: E) => E): AsyncGenerator<Event> {
  const call = id('tool');
  yield at({ type: EventType.TOOL_CALL_START, toolCallId: call, toolCallName: 'delete_file' });
  for (const piece of split(JSON.stringify({ path: aguiDemoDeletePath }), 2)) {
    yield at({ type: EventType.TOOL_CALL_ARGS, toolCallId: call, delta: piece });
    await context.sleep(20);
  }
  yield at({ type: EventType.TOOL_CALL_END, toolCallId: call });
  const message = id('msg');
  yield at({ type: EventType.TEXT_MESSAGE_START, messageId: message, role: 'assistant' });
  yield at({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: message, delta: `I need your permission to delete ${aguiDemoDeletePath}.` });
  yield at({ type: EventType.TEXT_MESSAGE_END, messageId: message });
  const interrupts = context.ledger.issue(threadId, [
    { subject: 'delete_file', message: `Approve delete_file({"path": "${aguiDemoDeletePath}"})?`, tool: { toolCallId: call, path: aguiDemoDeletePath } },
  ]);
  yield at({ type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: 'interrupt', interrupts } });
}

/** A resumed tool approval: the call runs with the arguments the answer left it (or is not run), and its result is reported on the original call. */
async function* resumedTool(
  answer: ConfirmationAnswer & { tool: NonNullable<ConfirmationAnswer['tool']> },
  at: <E extends Event>(event: E) => E,
): AsyncGenerator<Event> {
  const path = answer.tool.args.path;
  let text: string;
  if (!answer.approved) {
    text = `Kept ${aguiDemoDeletePath}: nothing was deleted.`;
    yield at({
      type: EventType.TOOL_CALL_RESULT,
      messageId: id('tool_msg'),
      toolCallId: answer.tool.toolCallId,
      role: 'tool',
      content: 'The user did not approve this call.',
    });
  } else if (typeof path !== 'string' || path.trim() === '') {
    text = "delete_file ran without a path (the edited arguments replace the call's): nothing was deleted.";
    yield at({
      type: EventType.TOOL_CALL_RESULT,
      messageId: id('tool_msg'),
      toolCallId: answer.tool.toolCallId,
      role: 'tool',
      content: JSON.stringify({ error: 'missing argument: path' }),
    });
  } else {
    text = `Deleted ${path}.`;
    yield at({
      type: EventType.TOOL_CALL_RESULT,
      messageId: id('tool_msg'),
      toolCallId: answer.tool.toolCallId,
      role: 'tool',
      content: JSON.stringify({ deleted: path }),
    });
  }
  const message = id('msg');
  yield at({ type: EventType.TEXT_MESSAGE_START, messageId: message, role: 'assistant' });
  yield at({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: message, delta: text });
  yield at({ type: EventType.TEXT_MESSAGE_END, messageId: message });
}

/** What a resume run shows before its RUN_FINISHED: step "apply", one iac_apply call per approval, the text. */
async function* resumed(
  answers: readonly ConfirmationAnswer[],
  settings: DemoRunSettings,
  context: AguiDemoContext,
  at: <E extends Event>(event: E) => E,
): AsyncGenerator<Event> {
  yield at({ type: EventType.STEP_STARTED, stepName: 'apply', metadata: { label: `Apply in ${settings.cwd ?? '(no forwardedProps.iacCode.cwd)'}` } });
  for (const answer of answers) {
    if (!answer.approved) continue;
    const call = id('tool');
    yield at({ type: EventType.TOOL_CALL_START, toolCallId: call, toolCallName: 'iac_apply' });
    const args = JSON.stringify({ target: answer.subject, cwd: settings.cwd ?? null, ...(answer.note === undefined ? {} : { note: answer.note }) });
    for (const piece of split(args, 2)) yield at({ type: EventType.TOOL_CALL_ARGS, toolCallId: call, delta: piece });
    yield at({ type: EventType.TOOL_CALL_END, toolCallId: call });
    await context.sleep(60);
    yield at({
      type: EventType.TOOL_CALL_RESULT,
      messageId: id('tool_msg'),
      toolCallId: call,
      role: 'tool',
      content: JSON.stringify({ target: answer.subject, applied: true }),
    });
  }
  const applied = answers.filter((answer) => answer.approved);
  const status = applied.length === answers.length ? 'applied' : applied.length === 0 ? 'cancelled' : 'partly_applied';
  yield at({
    type: EventType.STATE_SNAPSHOT,
    snapshot: {
      cwd: settings.cwd ?? null,
      status,
      applied: applied.map((answer) => answer.subject),
      cancelled: answers.filter((answer) => !answer.approved).map((answer) => answer.subject),
    },
  });
  yield at({ type: EventType.STEP_FINISHED, stepName: 'apply' });
  const text =
    status === 'applied'
      ? 'Applied.'
      : status === 'cancelled'
        ? 'Cancelled, nothing changed.'
        : `Applied to ${applied.map((answer) => answer.subject).join(', ')}. Cancelled for ${answers
            .filter((answer) => !answer.approved)
            .map((answer) => answer.subject)
            .join(', ')}: nothing changed there.`;
  const message = id('msg');
  yield at({ type: EventType.TEXT_MESSAGE_START, messageId: message, role: 'assistant' });
  for (const piece of split(text, 2)) yield at({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: message, delta: piece });
  yield at({ type: EventType.TEXT_MESSAGE_END, messageId: message });
}

/** An opaque stand-in for a provider's encrypted reasoning; clients store and return it, never show it. */
export const encryptedReasoning = 'demo-encrypted:U2VjcmV0IHJlYXNvbmluZyDigJMgbmV2ZXIgc2hvd24u';

function id(kind: string): string {
  return `${kind}_${randomUUID()}`;
}

/** `text` in `parts` pieces that concatenate to exactly `text` (by code point). */
function split(text: string, parts: number): string[] {
  const chars = [...text];
  const size = Math.max(1, Math.ceil(chars.length / parts));
  const pieces: string[] = [];
  for (let start = 0; start < chars.length; start += size) pieces.push(chars.slice(start, start + size).join(''));
  return pieces;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
