// A bare AG-UI 1.0 server: node:http and @ag-ui/encoder, no framework. POST /agui answers with a
// stream that, over a few turns, uses every AG-UI 1.0 event type; each event is checked with
// @ag-ui/core's own schema before it is sent, and each request with RunAgentInputSchema (the
// check's result goes back to the test with the body). What the user's last message says picks
// the turn:
//   "interrupt" → RUN_FINISHED with an interrupt outcome (no message, reason only; a second with metadata)
//   "snapshot"  → MESSAGES_SNAPSHOT of the history it was sent, plus one message of its own
//   "fail"      → RUN_ERROR
//   anything else → every other event type, REASONING_ENCRYPTED_VALUE for a reasoning message,
//                   an assistant message and a tool call among them
import { EventType } from '@ag-ui/core';
import { EventSchemas, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { listen, readJson, received, say } from './serve.mjs';

const origin = await listen(async (request, response) => {
  if (request.method !== 'POST' || request.url !== '/agui') {
    response.writeHead(request.url === '/agui' ? 405 : 404, { 'content-type': 'text/plain', ...(request.url === '/agui' ? { allow: 'POST' } : {}) });
    response.end(request.url === '/agui' ? 'Method Not Allowed' : 'Not Found');
    return;
  }
  const body = await readJson(request);
  const parsed = RunAgentInputSchema.safeParse(body);
  received(request, body);
  if (!parsed.success) {
    response.writeHead(422, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: { message: 'invalid RunAgentInput', problems: parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })) },
      }),
    );
    return;
  }
  const encoder = new EventEncoder({ accept: request.headers.accept });
  response.writeHead(200, { 'content-type': encoder.getContentType(), 'cache-control': 'no-cache' });
  for (const event of turn(parsed.data)) {
    const checked = EventSchemas.safeParse(event);
    if (!checked.success) throw new Error(`the bare peer built an invalid ${event.type}: ${checked.error.issues[0]?.message}`);
    response.write(encoder.encode(event));
  }
  response.end();
});
say({ listening: `${origin}/agui` });

function lastUserText(input) {
  const user = input.messages.findLast((message) => message.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

function* turn(input) {
  const { threadId, runId } = input;
  const said = lastUserText(input).toLowerCase();
  const n = input.messages.length;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  if (said.includes('interrupt')) {
    yield { type: EventType.TEXT_MESSAGE_START, messageId: `ask-${n}`, role: 'assistant' };
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `ask-${n}`, delta: 'I need your approval.' };
    yield { type: EventType.TEXT_MESSAGE_END, messageId: `ask-${n}` };
    yield {
      type: EventType.RUN_FINISHED,
      threadId,
      runId,
      outcome: {
        type: 'interrupt',
        interrupts: [
          { id: `bare-plain-${n}`, reason: 'bare:needs_a_word' },
          { id: `bare-meta-${n}`, reason: 'bare:approval', metadata: { bare: { message: 'Allow the bare peer to go on?' } } },
        ],
      },
    };
    return;
  }
  if (said.includes('snapshot')) {
    yield { type: EventType.MESSAGES_SNAPSHOT, messages: [...input.messages, { id: `snap-${n}`, role: 'assistant', content: 'From the snapshot.' }] };
    yield { type: EventType.RUN_FINISHED, threadId, runId };
    return;
  }
  if (said.includes('fail')) {
    yield { type: EventType.RUN_ERROR, message: 'The bare peer failed on purpose.', code: 'bare_failure' };
    return;
  }
  const reasoning = `reasoning-${n}`;
  const answer = `answer-${n}`;
  const call = `call-${n}`;
  yield { type: EventType.STEP_STARTED, stepName: 'think' };
  yield { type: EventType.REASONING_START, messageId: `span-${n}` };
  yield { type: EventType.REASONING_MESSAGE_START, messageId: reasoning, role: 'reasoning' };
  yield { type: EventType.REASONING_MESSAGE_CONTENT, messageId: reasoning, delta: 'Weighing the question.' };
  yield { type: EventType.REASONING_MESSAGE_END, messageId: reasoning };
  yield { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'message', entityId: reasoning, encryptedValue: `bare-sealed-reasoning-${n}` };
  yield { type: EventType.REASONING_MESSAGE_CHUNK, messageId: `${reasoning}-chunk`, delta: 'A second thought.' };
  yield { type: EventType.REASONING_END, messageId: `span-${n}` };
  yield { type: EventType.STEP_FINISHED, stepName: 'think' };
  yield { type: EventType.TEXT_MESSAGE_START, messageId: answer, role: 'assistant' };
  yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: answer, delta: 'Here is the weather.' };
  yield { type: EventType.TEXT_MESSAGE_END, messageId: answer };
  yield { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'message', entityId: answer, encryptedValue: `bare-sealed-answer-${n}` };
  yield { type: EventType.TOOL_CALL_START, toolCallId: call, toolCallName: 'get_weather', parentMessageId: answer };
  yield { type: EventType.TOOL_CALL_ARGS, toolCallId: call, delta: '{"city":"Brno"}' };
  yield { type: EventType.TOOL_CALL_END, toolCallId: call };
  yield { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'tool-call', entityId: call, encryptedValue: `bare-sealed-call-${n}` };
  yield { type: EventType.TOOL_CALL_RESULT, messageId: `result-${n}`, toolCallId: call, content: 'Sunny, 21 °C' };
  yield { type: EventType.TOOL_CALL_CHUNK, toolCallId: `${call}-chunk`, toolCallName: 'get_time', parentMessageId: answer, delta: '{"zone":"CET"}' };
  yield { type: EventType.TEXT_MESSAGE_CHUNK, messageId: `${answer}-chunk`, role: 'assistant', delta: 'Anything else?' };
  yield { type: EventType.STATE_SNAPSHOT, snapshot: { turns: n, city: 'Brno' } };
  yield { type: EventType.STATE_DELTA, delta: [{ op: 'replace', path: '/city', value: 'Praha' }] };
  yield { type: EventType.ACTIVITY_SNAPSHOT, messageId: `activity-${n}`, activityType: 'progress', content: { done: 1, of: 2 } };
  yield { type: EventType.ACTIVITY_DELTA, messageId: `activity-${n}`, activityType: 'progress', patch: [{ op: 'replace', path: '/done', value: 2 }] };
  yield { type: EventType.SUBAGENT_STARTED, subagentRunId: `helper-${n}`, name: 'helper' };
  yield { type: EventType.TEXT_MESSAGE_START, messageId: `helper-text-${n}`, role: 'assistant', subagentRunId: `helper-${n}` };
  yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `helper-text-${n}`, delta: 'Helper here.', subagentRunId: `helper-${n}` };
  yield { type: EventType.TEXT_MESSAGE_END, messageId: `helper-text-${n}`, subagentRunId: `helper-${n}` };
  yield { type: EventType.SUBAGENT_FINISHED, subagentRunId: `helper-${n}` };
  yield { type: EventType.SUBAGENT_STARTED, subagentRunId: `broken-${n}`, name: 'broken helper' };
  yield { type: EventType.SUBAGENT_ERROR, subagentRunId: `broken-${n}`, message: 'The helper gave up.' };
  yield { type: EventType.CUSTOM, name: 'bare.note', value: { said: 'hello' } };
  yield { type: EventType.RAW, event: { provider: 'bare' }, source: 'bare' };
  yield { type: EventType.RUN_FINISHED, threadId, runId };
}
