import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applyAguiEvent, markStreamDropped, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import { ConversationScreen } from '../../../src/renderer/conversation/ConversationScreen';
import { useAguiProfile } from '../../../src/renderer/conversation/protocols/agui';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

const agentId = 'agent-ide';
/** The fake main's thread id for an agent (`thread-<agentId>`). */
const threadId = `thread-${agentId}`;

type Event = Record<string, unknown> & { type: string };

beforeEach(() => {
  // The screen renders the conversation once per animation frame; here frames run at once.
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  document.documentElement.lang = '';
});

/** A fake main with one plain AG-UI agent; its conversation follows the thread main holds (`state.agui`). */
function aguiBackend(): FakeBackend {
  return createFakeBackend({
    agents: [{ id: agentId, url: 'https://ide.example.com/agui', display: 'ide.example.com/agui', addedAt: '2026-11-30T00:00:00Z', protocol: 'agui' }],
  });
}

async function renderScreen(backend: FakeBackend = aguiBackend()) {
  const user = userEvent.setup();
  const view = render(
    <I18nProvider setting="en">
      <ConversationScreen api={backend.api} headingRef={createRef()} agentId={agentId} label="IDE agent" useProfile={useAguiProfile} />
    </I18nProvider>,
  );
  await screen.findByText('No messages yet. Write one below.');
  return { backend, user, ...view };
}

/** Main's side of a run, as its AG-UI service does it: the events folded into the thread it holds (the run main began). */
function events(backend: FakeBackend, list: Event[]) {
  act(() => {
    const view = backend.state.agui[agentId]!;
    backend.state.agui[agentId] = { ...view, thread: list.reduce<AguiThreadView>((thread, event) => applyAguiEvent(thread, event), view.thread) };
  });
}

/** The id of the run main began last (the fake numbers them as it goes). */
function runId(backend: FakeBackend): string {
  return backend.state.agui[agentId]!.thread.runId!;
}

function composer(): HTMLTextAreaElement {
  return screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
}

function log() {
  return screen.getByRole('log', { name: 'Conversation' });
}

function status(): string {
  return document.querySelector('.run-status__text')?.textContent ?? '';
}

/** Sends text as the user does; answers the run's id once main began it. */
async function sendMessage(user: ReturnType<typeof userEvent.setup>, backend: FakeBackend, text: string): Promise<string> {
  await user.type(composer(), `${text}{Enter}`);
  await waitFor(() => expect(backend.callsOf('agui.send').at(-1)?.text).toBe(text));
  await waitFor(() => expect(status()).toBe('Agent is answering…'));
  return runId(backend);
}

async function openDetails(user: ReturnType<typeof userEvent.setup>) {
  await user.click(document.querySelector<HTMLButtonElement>('.conversation-header__info')!);
  return screen.findByRole('dialog');
}

/** A run that uses the AG-UI 1.0 event types the screen draws (shapes as in test/unit/agui/run-model.test.ts). */
function fullRun(run: string): Event[] {
  return [
    { type: 'RUN_STARTED', threadId, runId: run },
    { type: 'STEP_STARTED', stepName: 'plan' },
    { type: 'REASONING_START', messageId: 'r-span' },
    { type: 'REASONING_MESSAGE_START', messageId: 'r-1', role: 'reasoning' },
    { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'Checking the stack ' },
    { type: 'REASONING_MESSAGE_CONTENT', messageId: 'r-1', delta: 'before deploying.' },
    { type: 'REASONING_MESSAGE_END', messageId: 'r-1' },
    { type: 'REASONING_ENCRYPTED_VALUE', subtype: 'message', entityId: 'r-1', encryptedValue: 'SECRET-CIPHERTEXT-1' },
    { type: 'REASONING_END', messageId: 'r-span' },
    { type: 'STEP_FINISHED', stepName: 'plan' },
    { type: 'STEP_STARTED', stepName: 'deploy' },
    { type: 'TEXT_MESSAGE_START', messageId: 'm-1', role: 'assistant' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: 'Deploying **web** now. ' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm-1', delta: '<script>window.pwned = true</script><img src=x onerror="window.pwned = true">' },
    { type: 'TEXT_MESSAGE_END', messageId: 'm-1' },
    { type: 'TOOL_CALL_START', toolCallId: 't-1', toolCallName: 'deploy', parentMessageId: 'm-1' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '{"stack":' },
    { type: 'TOOL_CALL_ARGS', toolCallId: 't-1', delta: '"web","n":2}' },
    { type: 'TOOL_CALL_END', toolCallId: 't-1' },
    { type: 'TOOL_CALL_RESULT', messageId: 'tm-1', toolCallId: 't-1', content: 'deployed 2 instances' },
    { type: 'ACTIVITY_SNAPSHOT', messageId: 'act-1', activityType: 'PLAN', content: { steps: [{ title: 'build', status: 'waiting' }] } },
    { type: 'ACTIVITY_DELTA', messageId: 'act-1', activityType: 'PLAN', patch: [{ op: 'replace', path: '/steps/0/status', value: 'built' }] },
    { type: 'STATE_SNAPSHOT', snapshot: { count: 1, tags: [] } },
    { type: 'STATE_DELTA', delta: [{ op: 'replace', path: '/count', value: 2 }] },
    { type: 'SUBAGENT_STARTED', subagentRunId: 'sub-1', name: 'researcher' },
    { type: 'SUBAGENT_STARTED', subagentRunId: 'sub-2', name: 'researcher' },
    { type: 'TEXT_MESSAGE_START', messageId: 's1-m', subagentRunId: 'sub-1' },
    { type: 'TEXT_MESSAGE_START', messageId: 's2-m', subagentRunId: 'sub-2' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 's1-m', delta: 'first invocation text', subagentRunId: 'sub-1' },
    { type: 'TEXT_MESSAGE_CONTENT', messageId: 's2-m', delta: 'second invocation text', subagentRunId: 'sub-2' },
    { type: 'TEXT_MESSAGE_END', messageId: 's1-m', subagentRunId: 'sub-1' },
    { type: 'TEXT_MESSAGE_END', messageId: 's2-m', subagentRunId: 'sub-2' },
    { type: 'SUBAGENT_FINISHED', subagentRunId: 'sub-1' },
    { type: 'SUBAGENT_ERROR', subagentRunId: 'sub-2', message: 'quota exceeded', code: 'quota' },
    { type: 'CUSTOM', name: 'agentdesk.note.v1', value: { text: 'Deployment window is open.', title: 'Window' } },
    { type: 'CUSTOM', name: 'someone.else.v9', value: { text: 'ignored namespace' } },
    { type: 'RAW', event: { provider: 'native-raw-event' }, source: 'x' },
    { type: 'HOLOGRAM_START' },
    { type: 'STEP_FINISHED', stepName: 'deploy' },
  ];
}

const confirmationSchema = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve the change' }, note: { type: 'string', maxLength: 200, title: 'Note (optional)' } },
  required: ['approve'],
};

const inputSchema = {
  type: 'object',
  properties: {
    env: { type: 'string', title: 'Environment', enum: ['staging', 'production'] },
    count: { type: 'integer', title: 'Instances', minimum: 1, maximum: 5 },
    email: { type: 'string', title: 'Contact', format: 'email' },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['fast', 'safe'] } },
    window: { type: 'object', title: 'Window', properties: { day: { type: 'string', format: 'date', title: 'Day' } } },
  },
  required: ['env', 'count'],
};

function interruptRun(run: string): Event[] {
  return [
    { type: 'RUN_STARTED', threadId, runId: run },
    { type: 'TOOL_CALL_START', toolCallId: 'tc-9', toolCallName: 'drop_database' },
    { type: 'TOOL_CALL_END', toolCallId: 'tc-9' },
    {
      type: 'RUN_FINISHED',
      threadId,
      runId: run,
      outcome: {
        type: 'interrupt',
        interrupts: [
          { id: 'i-confirm', reason: 'confirmation', message: 'Change demo-network?', responseSchema: confirmationSchema, expiresAt: '2999-01-01T00:00:00Z' },
          { id: 'i-input', reason: 'input_required', message: 'Where should it go?', responseSchema: inputSchema },
          { id: 'i-expired', reason: 'vendor.review', message: 'Review <b>this</b>', expiresAt: '2000-01-01T00:00:00Z' },
          { id: 'i-unsupported', reason: 'tool_call', toolCallId: 'tc-9', responseSchema: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
        ],
      },
    },
  ];
}

/** A tool call and its approval, as pydantic-ai's AG-UI adapter raises one. */
function approvalRun(run: string, schema: Record<string, unknown>): Event[] {
  return [
    { type: 'RUN_STARTED', threadId, runId: run },
    { type: 'TOOL_CALL_START', toolCallId: `del-${run}`, toolCallName: 'delete_file' },
    { type: 'TOOL_CALL_ARGS', toolCallId: `del-${run}`, delta: '{"path": "notes/old-plan.md"}' },
    { type: 'TOOL_CALL_END', toolCallId: `del-${run}` },
    {
      type: 'RUN_FINISHED',
      threadId,
      runId: run,
      outcome: { type: 'interrupt', interrupts: [{ id: `approve-${run}`, reason: 'tool_call', toolCallId: `del-${run}`, responseSchema: schema }] },
    },
  ];
}

// pydantic-ai 2.33's approval schema: editedArgs is an open object.
const pydanticApproval = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object' }, reason: { type: 'string' } },
  required: ['approved'],
};
// The demo's: editedArgs with a path field.
const demoApproval = {
  type: 'object',
  properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object', properties: { path: { type: 'string' } } } },
  required: ['approved'],
};

function finish(backend: FakeBackend, run: string) {
  events(backend, [
    { type: 'RUN_STARTED', threadId, runId: run },
    { type: 'RUN_FINISHED', threadId, runId: run },
  ]);
}

function section(name: string): HTMLElement {
  return screen.getByRole('region', { name });
}

describe('plain AG-UI on the conversation screen', () => {
  it('opens the agent: its name, an empty conversation, nothing to retry; the endpoint in Details', async () => {
    const { backend, user } = await renderScreen();
    expect(backend.callsOf('conversation.open')).toEqual([{ agentId }]);
    expect(screen.getByRole('heading', { level: 1, name: 'IDE agent' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(status()).toBe('');
    const details = await openDetails(user);
    expect(within(details).getByText('Endpoint: 127.0.0.1:9')).toBeTruthy();
  });

  it('sends text as a run and shows every part main folded, the protocol’s inner workings in Details', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Deploy the web stack');
    expect(backend.callsOf('conversation.send')).toEqual([
      { agentId, conversationId: expect.any(String), messageId: expect.stringMatching(/^msg-/), text: 'Deploy the web stack' },
    ]);
    expect(backend.callsOf('agui.send')).toEqual([{ agentId, messageId: backend.callsOf('conversation.send')[0]!.messageId, text: 'Deploy the web stack' }]);
    await within(log()).findByText('Deploy the web stack');
    // While the run goes, Cancel is offered and Send queues.
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send next' })).toBeTruthy();

    events(backend, fullRun(run));
    const transcript = log();
    await within(transcript).findByText('first invocation text');

    // Reasoning: a collapsed "Thinking" disclosure; the encrypted part is never shown, only mentioned.
    const thinking = within(transcript).getByText('Thinking').closest('details') as HTMLDetailsElement;
    expect(thinking.open).toBe(false);
    expect(thinking.textContent).toContain('Checking the stack before deploying.');
    expect(thinking.textContent).toContain('Part of the reasoning is encrypted and not shown.');
    expect(document.body.innerHTML).not.toContain('SECRET-CIPHERTEXT');

    // The agent's text is Markdown without HTML: the script and image stay literal text.
    expect(within(transcript).getByText('web').tagName).toBe('STRONG');
    expect(transcript.textContent).toContain('<script>window.pwned = true</script>');
    expect(transcript.querySelector('script, img')).toBeNull();
    expect((window as { pwned?: boolean }).pwned).toBeUndefined();

    // The tool: one line in words; what it was given (pretty) and gave back behind it.
    const tool = within(transcript).getByText('Used deploy').closest('details') as HTMLDetailsElement;
    expect(tool.open).toBe(false);
    expect(tool.querySelector('pre')?.textContent).toBe('{\n  "stack": "web",\n  "n": 2\n}');
    expect(tool.textContent).toContain('deployed 2 instances');

    // The activity, updated in place by the delta: in words, its JSON behind Details.
    const activities = within(transcript).getAllByRole('region', { name: 'Plan' });
    expect(activities).toHaveLength(1);
    expect(within(activities[0]!).getByText('• build — built')).toBeTruthy();

    // Two invocations of the same subagent: two lanes, each with its own text.
    const lanes = within(transcript)
      .getAllByText('Helper agent: researcher')
      .map((kicker) => kicker.closest('li')!);
    expect(lanes).toHaveLength(2);
    expect(lanes[0]?.textContent).toContain('first invocation text');
    expect(lanes[1]?.textContent).toContain('second invocation text');
    // The second one failed: it says why, in its lane.
    const failed = within(transcript).getByText('quota exceeded').closest('li')!;
    expect(failed.previousElementSibling).toBe(lanes[1]);

    // A known CUSTOM namespace is shown, an unknown one and RAW are not.
    expect(transcript.textContent).toContain('Deployment window is open.');
    expect(document.body.textContent).not.toContain('ignored namespace');
    expect(document.body.textContent).not.toContain('native-raw-event');

    events(backend, [{ type: 'RUN_FINISHED', threadId, runId: run }]);
    await waitFor(() => expect(status()).toBe('Answered'));
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();

    // Steps, state and protocol notes: in the agent's details, not in the conversation.
    expect(transcript.textContent).not.toContain('event_unknown_type');
    const details = await openDetails(user);
    const steps = await within(details).findByRole('region', { name: 'Steps' });
    expect(
      within(steps)
        .getAllByRole('listitem')
        .map((entry) => entry.textContent),
    ).toEqual(['✓ plan (done)', '✓ deploy (done)']);
    const state = within(details).getByText('State').closest('details') as HTMLDetailsElement;
    expect(state.open).toBe(false);
    expect(JSON.parse(state.querySelector('pre')?.textContent ?? '')).toEqual({ count: 2, tags: [] });
    const notes = within(details).getByText('Protocol notes (1)').closest('details') as HTMLDetailsElement;
    expect(notes.textContent).toContain('event_unknown_type');
  });

  it('shows an activity as its readable title and lines; the raw JSON only behind Details', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Check the policies');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      {
        type: 'ACTIVITY_SNAPSHOT',
        messageId: 'act-checks',
        activityType: 'iac-code.checks',
        content: {
          title: 'Policy checks',
          summary: '2 of 3 passed',
          checks: [
            { name: 'tags', status: 'passed' },
            { name: 'encryption', status: 'failed' },
          ],
        },
      },
      { type: 'RUN_FINISHED', threadId, runId: run },
    ]);
    const activity = await within(log()).findByRole('region', { name: 'Policy checks' });
    expect(within(activity).getByText('Policy checks')).toBeTruthy();
    expect(within(activity).getByText(/Summary: 2 of 3 passed/).textContent).toBe('Summary: 2 of 3 passed\n• tags — passed\n• encryption — failed');
    // The JSON is there, folded away behind Details; nothing of it shows outside.
    const raw = activity.querySelector('pre') as HTMLElement;
    expect(JSON.parse(raw.textContent ?? '')).toEqual({
      title: 'Policy checks',
      summary: '2 of 3 passed',
      checks: [
        { name: 'tags', status: 'passed' },
        { name: 'encryption', status: 'failed' },
      ],
    });
    const disclosure = raw.closest('details') as HTMLDetailsElement;
    expect(disclosure.open).toBe(false);
    expect(within(disclosure).getByText('Details').tagName).toBe('SUMMARY');
    const outside = [...activity.children]
      .filter((child) => child !== disclosure)
      .map((child) => child.textContent)
      .join(' ');
    expect(outside).not.toMatch(/[{}"]/);
  });

  it('shows the deprecated THINKING_* events (as the Python SDK sends them) as reasoning, with one protocol note in Details', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Think');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'THINKING_START', title: 'Planning' },
      { type: 'THINKING_TEXT_MESSAGE_START' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Old-style ' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'reasoning.' },
      { type: 'THINKING_TEXT_MESSAGE_END' },
      { type: 'THINKING_END' },
      { type: 'RUN_FINISHED', threadId, runId: run },
    ]);
    await waitFor(() => expect(status()).toBe('Answered'));
    const thinking = within(log()).getByText('Thinking').closest('details') as HTMLDetailsElement;
    expect(thinking.textContent).toContain('Old-style reasoning.');
    const details = await openDetails(user);
    const notes = within(details).getByText('Protocol notes (1)').closest('details') as HTMLDetailsElement;
    expect(notes.textContent).toContain('event_deprecated_thinking');
  });

  it('a failed run: the status says so, the agent’s error is in the conversation, and Retry starts the turn again', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Hello');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'streamed' },
      { type: 'RUN_ERROR', message: 'The model is overloaded.', code: 'overloaded' },
    ]);
    await waitFor(() => expect(status()).toBe('The answer stopped with an error.'));
    expect(within(log()).getByText('The model is overloaded.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('agui.retry')).toEqual([{ agentId }]));
    await waitFor(() => expect(status()).toBe('Agent is answering…'));
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('cancels a running run', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Long job');
    events(backend, [{ type: 'RUN_STARTED', threadId, runId: run }]);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(backend.callsOf('agui.cancel')).toEqual([{ agentId }]));
    expect(backend.callsOf('conversation.cancel')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull());
  });

  it('shows a dropped stream as broken off, and Retry starts the turn again', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Deploy');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'half an ans' },
    ]);
    act(() => {
      const view = backend.state.agui[agentId]!;
      backend.state.agui[agentId] = { ...view, thread: markStreamDropped(view.thread, 'The stream ended without RUN_FINISHED.') };
    });
    await waitFor(() => expect(status()).toBe('The answer broke off.'));
    expect(within(log()).getByText('half an ans')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('agui.retry')).toEqual([{ agentId }]));
    await waitFor(() => expect(status()).toBe('Agent is answering…'));
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    const again = runId(backend);
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: again },
      { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'the whole answer' },
      { type: 'TEXT_MESSAGE_END', messageId: 'm2' },
      { type: 'RUN_FINISHED', threadId, runId: again },
    ]);
    await screen.findByText('the whole answer');
    await waitFor(() => expect(status()).toBe('Answered'));
  });

  it('a message typed while the agent answers waits, shown as waiting; Take back removes it; one left waiting is sent when the run ends', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'First question');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'TEXT_MESSAGE_START', messageId: 'a1', role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: 'a1', delta: 'Working on it' },
    ]);
    await user.type(composer(), 'Never mind{Enter}');
    const waiting = (await within(log()).findByText('Never mind')).closest('.message') as HTMLElement;
    expect(within(waiting).getByText('Waiting: sent when the agent has answered')).toBeTruthy();
    await user.click(within(waiting).getByRole('button', { name: 'Take back' }));
    await waitFor(() => expect(within(log()).queryByText('Never mind')).toBeNull());
    expect(backend.callsOf('conversation.unqueue')).toHaveLength(1);

    await user.type(composer(), 'And the second one{Enter}');
    await within(log()).findByText('And the second one');
    expect(backend.callsOf('agui.send').map((call) => call.text)).toEqual(['First question']);
    events(backend, [
      { type: 'TEXT_MESSAGE_END', messageId: 'a1' },
      { type: 'RUN_FINISHED', threadId, runId: run },
    ]);
    // The run ended: main sends the waiting message, a new run starts with it.
    await waitFor(() => expect(backend.callsOf('agui.send').map((call) => call.text)).toEqual(['First question', 'And the second one']));
    await waitFor(() => expect(status()).toBe('Agent is answering…'));
    const sent = within(log()).getByText('And the second one').closest('.message') as HTMLElement;
    expect(within(sent).queryByText('Waiting: sent when the agent has answered')).toBeNull();
    expect(within(log()).queryByText('Never mind')).toBeNull();
  });

  it('one approval: Allow answers it with approved: true, and its arguments are one click away', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Delete the old plan');
    events(backend, approvalRun(run, pydanticApproval));
    const approval = await within(log()).findByRole('region', { name: 'The agent asks for your OK' });
    expect(within(approval).getByText('May the agent use delete_file?')).toBeTruthy();
    const args = within(approval).getByText('What it would use').closest('details') as HTMLDetailsElement;
    expect(args.open).toBe(false);
    expect(JSON.parse(args.querySelector('pre')?.textContent ?? '')).toEqual({ path: 'notes/old-plan.md' });
    expect(status()).toBe('Waiting for your answer');
    await user.click(within(approval).getByRole('button', { name: 'Allow' }));
    await waitFor(() =>
      expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { [`approve-${run}`]: { status: 'resolved', payload: { approved: true } } } }]),
    );
    await waitFor(() => expect(within(log()).queryByRole('region', { name: 'The agent asks for your OK' })).toBeNull());
    // The decision stays in the conversation once the run took it.
    finish(backend, runId(backend));
    const answer = (await within(log()).findByText('Your answer')).closest('li') as HTMLElement;
    expect(within(answer).getByText('approved').nextElementSibling?.textContent).toBe('Yes');
  });

  it('one approval: Deny answers it with approved: false', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Delete the old plan');
    events(backend, approvalRun(run, demoApproval));
    const approval = await within(log()).findByRole('region', { name: 'The agent asks for your OK' });
    await user.click(within(approval).getByRole('button', { name: 'Deny' }));
    await waitFor(() =>
      expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { [`approve-${run}`]: { status: 'resolved', payload: { approved: false } } } }]),
    );
  });

  it('a confirmation with a boolean approve and a note is an approval too: Allow sends approve: true', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Apply it');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: run,
        outcome: {
          type: 'interrupt',
          interrupts: [{ id: 'c-1', reason: 'confirmation', message: 'Change demo-network?', responseSchema: confirmationSchema }],
        },
      },
    ]);
    const approval = await within(log()).findByRole('region', { name: 'The agent asks for your OK' });
    expect(within(approval).getByText('Change demo-network?')).toBeTruthy();
    await user.click(within(approval).getByRole('button', { name: 'Allow' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { 'c-1': { status: 'resolved', payload: { approve: true } } } }]));
  });

  it('Edit… on an approval opens the full form: it starts from the call’s arguments and sends editedArgs only when they were changed', async () => {
    const { backend, user } = await renderScreen();
    let run = await sendMessage(user, backend, 'Delete the old plan');
    events(backend, approvalRun(run, pydanticApproval));
    let approval = await within(log()).findByRole('region', { name: 'The agent asks for your OK' });
    await user.click(within(approval).getByRole('button', { name: 'Edit…' }));
    let form = await within(log()).findByRole('region', { name: 'Permission to use a tool' });
    // pydantic-ai's open editedArgs: JSON with the current arguments.
    const args = within(form).getByRole<HTMLTextAreaElement>('textbox', { name: 'editedArgs' });
    expect(JSON.parse(args.value)).toEqual({ path: 'notes/old-plan.md' });
    await user.click(within(form).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() =>
      expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { [`approve-${run}`]: { status: 'resolved', payload: { approved: true } } } }]),
    );
    finish(backend, runId(backend));
    await waitFor(() => expect(status()).toBe('Answered'));

    // The demo's shape: editedArgs with a path field, filled in; an edited path is sent (whole arguments).
    run = await sendMessage(user, backend, 'Delete it again');
    events(backend, approvalRun(run, demoApproval));
    approval = await within(log()).findByRole('region', { name: 'The agent asks for your OK' });
    await user.click(within(approval).getByRole('button', { name: 'Edit…' }));
    form = await within(log()).findByRole('region', { name: 'Permission to use a tool' });
    const path = within(within(form).getByRole('group', { name: 'editedArgs' })).getByRole<HTMLInputElement>('textbox', { name: 'path' });
    expect(path.value).toBe('notes/old-plan.md');
    await user.clear(path);
    await user.type(path, 'new');
    await user.click(within(form).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toHaveLength(2));
    expect(backend.callsOf('agui.resume')[1]).toEqual({
      agentId,
      answers: { [`approve-${run}`]: { status: 'resolved', payload: { approved: true, editedArgs: { path: 'new' } } } },
    });
  });

  it('several questions stay forms, in the conversation: every form is checked and every open question answered at once', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Deploy to production');
    events(backend, interruptRun(run));
    await waitFor(() => expect(status()).toBe('Waiting for your answer'));

    // The composer says to answer first, and does not send.
    expect(screen.getByText('Answer the agent’s request above first.')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Send' }).disabled).toBe(true);

    const forms = within(log()).getByRole('region', { name: 'The agent is waiting for you' });
    const confirm = within(forms).getByRole('region', { name: 'Please confirm' });
    expect(within(confirm).getByText('Change demo-network?')).toBeTruthy();
    expect(within(confirm).getByText(/^Expires in /)).toBeTruthy();
    const input = section('The agent needs input');
    const generic = section('A request from the agent');
    // A reason no client knows is a detail: behind Details.
    expect(within(generic).getByText('Reason: vendor.review').closest('[hidden]')).toBeTruthy();
    // The message is plain text.
    expect(within(generic).getByText('Review <b>this</b>')).toBeTruthy();
    expect(within(generic).getByText('Expired — will be cancelled')).toBeTruthy();
    expect(within(generic).queryByRole('checkbox', { name: 'Cancel this request' })).toBeNull();
    const unsupported = section('Permission to use a tool');
    expect(within(unsupported).getByText('For the tool drop_database')).toBeTruthy();
    expect(within(unsupported).getByText(/This request cannot be answered here, only cancelled\./)).toBeTruthy();
    expect(within(unsupported).queryByRole('checkbox')).toBeNull();

    // The input form: a select for the enum, a number with bounds, an email field, a checkbox group, a nested fieldset.
    const env = within(input).getByRole<HTMLSelectElement>('combobox', { name: /Environment/ });
    const count = within(input).getByRole<HTMLInputElement>('spinbutton', { name: /Instances/ });
    expect(count.min).toBe('1');
    expect(count.max).toBe('5');
    const email = within(input).getByRole<HTMLInputElement>('textbox', { name: /Contact/ });
    expect(email.type).toBe('email');
    expect(within(input).getByRole('group', { name: /Tags/ })).toBeTruthy();
    const day = within(within(input).getByRole('group', { name: 'Window' })).getByLabelText<HTMLInputElement>('Day');
    expect(day.type).toBe('date');

    // Send with the required fields empty: errors on the fields, nothing sent.
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await screen.findByText('Some answers need attention.');
    expect(within(input).getByText('Environment: is required.')).toBeTruthy();
    expect(within(input).getByText('Instances: is required.')).toBeTruthy();
    expect(env.getAttribute('aria-invalid')).toBe('true');
    expect(document.activeElement).toBe(env);
    expect(backend.callsOf('agui.resume')).toEqual([]);

    await user.selectOptions(env, 'production');
    await user.type(count, '9');
    await user.type(email, 'not-an-email');
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await screen.findByText('Instances: must be at most 5.');
    expect(within(input).getByText('Contact: is not a valid email.')).toBeTruthy();
    expect(backend.callsOf('agui.resume')).toEqual([]);

    await user.clear(count);
    await user.type(count, '3');
    await user.clear(email);
    await user.type(email, 'ops@example.com');
    await user.click(within(input).getByRole('checkbox', { name: 'safe' }));
    await user.click(within(confirm).getByRole('checkbox', { name: 'Approve the change' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));

    await waitFor(() => expect(backend.callsOf('agui.resume')).toHaveLength(1));
    expect(backend.callsOf('agui.resume')[0]).toEqual({
      agentId,
      answers: {
        'i-confirm': { status: 'resolved', payload: { approve: true } },
        // The untouched optional "Window" object is absent, not {}.
        'i-input': { status: 'resolved', payload: { env: 'production', count: 3, email: 'ops@example.com', tags: ['safe'] } },
        'i-expired': { status: 'cancelled' },
        'i-unsupported': { status: 'cancelled' },
      },
    });
    // The answers are on their way: the forms go, the run starts.
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Send answers' })).toBeNull());
    await waitFor(() => expect(status()).toBe('Agent is answering…'));
    // The focus was in the forms: it moves to the message field instead of the page.
    await waitFor(() => expect(document.activeElement).toBe(composer()));
    finish(backend, runId(backend));
    await waitFor(() => expect(status()).toBe('Answered'));
    expect(screen.queryByText('Answer the agent’s request above first.')).toBeNull();

    // What was answered stays in the conversation, on the user's side, worded for people.
    const answers = within(log())
      .getAllByText(/^(Your answer|You cancelled this request)$/)
      .map((kicker) => kicker.closest('li')!);
    expect(answers.map((entry) => entry.className)).toEqual(Array(4).fill('transcript__item transcript__item--answer'));
    expect(within(answers[0]!).getByText('Change demo-network?')).toBeTruthy();
    expect(within(answers[0]!).getByText('Approve the change').nextElementSibling?.textContent).toBe('Yes');
    expect(within(answers[1]!).getByText('Tags').nextElementSibling?.textContent).toBe('safe');
    expect(within(answers[1]!).getByText('Instances').nextElementSibling?.textContent).toBe('3');
    expect(within(answers[2]!).getByText('You cancelled this request')).toBeTruthy();
  });

  it('sends "Cancel this request" as cancelled, and a question without a schema as resolved', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Go');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: run,
        outcome: {
          type: 'interrupt',
          interrupts: [
            { id: 'a', reason: 'confirmation', message: 'Delete the bucket?', responseSchema: confirmationSchema },
            { id: 'b', reason: 'confirmation', message: 'Restart the service?' },
          ],
        },
      },
    ]);
    await screen.findByText('Delete the bucket?');
    const [first, second] = screen.getAllByRole('region', { name: 'Please confirm' });
    await user.click(within(first as HTMLElement).getByRole('checkbox', { name: 'Cancel this request' }));
    // A cancelled request's fields are disabled, and they are not checked.
    expect(
      within(first as HTMLElement)
        .getByRole('checkbox', { name: 'Approve the change' })
        .matches(':disabled'),
    ).toBe(true);
    expect(within(second as HTMLElement).getByText(/No details are needed/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { a: { status: 'cancelled' }, b: { status: 'resolved' } } }]));
  });

  it('a suspended Mastra tool: its question in words as an approval, the raw reason behind Details in the full form, and its result named after the tool', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Send 100 EUR to Alice');
    // As @ag-ui/mastra 1.1.2 sends it (measured with test/peers/mastra.mjs): the suspended call is never announced,
    // the interrupt has no message, and its metadata says what it is about.
    const mastra = {
      type: 'mastra_suspend',
      toolName: 'transfer_money',
      suspendPayload: { reason: 'Approve sending 100 EUR to Alice?' },
      args: { amount: 100, to: 'Alice' },
      runId: run,
    };
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'CUSTOM', name: 'on_interrupt', value: JSON.stringify(mastra) },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: run,
        outcome: {
          type: 'interrupt',
          interrupts: [
            {
              id: `${run}::transfer-1`,
              reason: 'mastra:tool_suspend',
              toolCallId: 'transfer-1',
              responseSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] },
              metadata: { mastra },
            },
          ],
        },
      },
    ]);
    await waitFor(() => expect(status()).toBe('Waiting for your answer'));
    const approval = within(log()).getByRole('region', { name: 'The agent asks for your OK' });
    expect(within(approval).getByText('Approve sending 100 EUR to Alice?')).toBeTruthy();
    expect(approval.textContent).not.toContain('mastra');
    await user.click(within(approval).getByRole('button', { name: 'Edit…' }));
    const request = section('A request from the agent');
    expect(within(request).getByText('For the tool transfer_money')).toBeTruthy();
    // The raw reason is there, behind Details.
    expect(within(request).queryByText('Reason: mastra:tool_suspend')?.closest('[hidden]')).toBeTruthy();
    await user.click(within(request).getByRole('button', { name: 'Details' }));
    expect(within(request).getByText('Reason: mastra:tool_suspend').closest('[hidden]')).toBeNull();

    await user.click(within(request).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toHaveLength(1));
    const next = runId(backend);
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: next },
      { type: 'TOOL_CALL_RESULT', toolCallId: 'transfer-1', content: '{"sent":true,"amount":100}', messageId: 'result-1', role: 'tool' },
      { type: 'TEXT_MESSAGE_CHUNK', role: 'assistant', messageId: 'done-1', delta: 'The transfer is done.' },
      { type: 'RUN_FINISHED', threadId, runId: next },
    ]);
    await screen.findByText('The transfer is done.');
    // The result of the call that was never announced is named after the tool the question named.
    expect(within(log()).getByText('Used transfer_money')).toBeTruthy();
  });

  it('keeps the forms when main refuses the answers, and says why', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Go');
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'RUN_FINISHED', threadId, runId: run, outcome: { type: 'interrupt', interrupts: [{ id: 'a', reason: 'confirmation', message: 'Restart?' }] } },
    ]);
    await screen.findByText('Restart?');
    backend.failNext('agui.resume', { code: 'rejected', message: 'The interrupt was already answered.' });
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(await screen.findByText(/The answers were not sent\. The interrupt was already answered\./)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send answers' })).toBeTruthy();
    expect(status()).toBe('Waiting for your answer');
  });

  it('saves forwardedProps in Details, and shows a refusal with its path', async () => {
    const { backend, user } = await renderScreen();
    const details = await openDetails(user);
    await user.click(within(details).getByText('Connection settings'));
    const field = within(details).getByRole<HTMLTextAreaElement>('textbox', { name: 'forwardedProps (JSON)' });
    expect(field.placeholder).toBe('{"iacCode":{"cwd":"/path"}}');
    expect(within(details).getByText(/iac-code needs its working directory, for example \{"iacCode":\{"cwd":"\/path"\}\}/)).toBeTruthy();

    // Not JSON: refused here, before main is asked.
    fireEvent.change(field, { target: { value: '{"iacCode":' } });
    await user.click(within(details).getByRole('button', { name: 'Save forwardedProps' }));
    expect((await within(details).findByRole('alert')).textContent).toMatch(/forwardedProps is not JSON/);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('agui.setForwardedProps')).toEqual([]);

    // Main refuses what it cannot use, with the JSON pointer of the problem.
    backend.failNext('agui.setForwardedProps', {
      code: 'invalid_request',
      message: 'forwardedProps.iacCode.cwd must be an absolute path.',
      path: '/iacCode/cwd',
    });
    fireEvent.change(field, { target: { value: '{"iacCode":{"cwd":"relative"}}' } });
    await user.click(within(details).getByRole('button', { name: 'Save forwardedProps' }));
    await waitFor(() => expect(within(details).getByRole('alert').textContent).toBe('At /iacCode/cwd: forwardedProps.iacCode.cwd must be an absolute path.'));

    fireEvent.change(field, { target: { value: '{"iacCode":{"cwd":"/home/me/infra"}}' } });
    await user.click(within(details).getByRole('button', { name: 'Save forwardedProps' }));
    await within(details).findByText('forwardedProps saved.');
    expect(backend.callsOf('agui.setForwardedProps').at(-1)).toEqual({ agentId, json: '{"iacCode":{"cwd":"/home/me/infra"}}' });
    expect(within(details).queryByRole('alert')).toBeNull();
  });

  it('saves and removes the bearer token in Details without ever showing it', async () => {
    const { backend, user } = await renderScreen();
    const details = await openDetails(user);
    await user.click(within(details).getByText('Connection settings'));
    expect(within(details).getByText('No token is saved.')).toBeTruthy();
    const token = within(details).getByLabelText<HTMLInputElement>('Bearer token');
    expect(token.type).toBe('password');
    await user.type(token, 'tok-123{Enter}');
    await within(details).findByText('A token is saved.');
    expect(backend.callsOf('agui.useToken')).toEqual([{ agentId, token: 'tok-123' }]);
    expect(token.value).toBe('');
    await user.click(within(details).getByRole('button', { name: 'Remove token' }));
    await within(details).findByText('No token is saved.');
    expect(backend.callsOf('agui.useToken').at(-1)).toEqual({ agentId, token: '' });
  });

  it('starts a new chat; the first is kept and opens again from the list', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'First topic');
    finish(backend, run);
    await waitFor(() => expect(status()).toBe('Answered'));
    // The chat list (in place here: no shell around the screen) names the thread by its first message, marked open.
    const chats = within(screen.getByRole('navigation', { name: 'Chats' }));
    await waitFor(() => expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBe('true'));
    await user.click(chats.getByRole('button', { name: 'New chat' }));
    await screen.findByText('No messages yet. Write one below.');
    expect(backend.callsOf('agui.newThread')).toEqual([{ agentId }]);
    expect(within(log()).queryByText('First topic')).toBeNull();
    // The first thread is kept: listed, no longer open; it opens again from the list.
    await waitFor(() => expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBeNull());
    await user.click(chats.getByRole('button', { name: 'First topic' }));
    expect(await within(log()).findByText('First topic')).toBeTruthy();
    expect(backend.callsOf('agui.openThread')).toEqual([{ agentId, threadId }]);
    await waitFor(() => expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBe('true'));
  });

  it('says why the conversation could not be opened, and tries again', async () => {
    const backend = aguiBackend();
    backend.failNext('conversation.open', { code: 'not_found', message: 'That agent is no longer in your list.' });
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <ConversationScreen api={backend.api} headingRef={createRef()} agentId={agentId} label="IDE agent" useProfile={useAguiProfile} />
      </I18nProvider>,
    );
    expect(await screen.findByText(/Could not connect to IDE agent\. That agent is no longer in your list\./)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('No messages yet. Write one below.');
    expect(backend.callsOf('conversation.open')).toHaveLength(2);
  });
});

describe('plain AG-UI endpoints from Home', () => {
  it('adds an address as a plain AG-UI endpoint when the box under Advanced is checked', async () => {
    const { backend, user } = await renderApp();
    await user.type(screen.getByRole('textbox', { name: 'Agent address' }), 'https://ide.example.com/agui');
    await user.click(screen.getByText('Advanced'));
    await user.click(screen.getByRole('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }));
    await user.click(screen.getByRole('button', { name: 'Check' }));
    await screen.findByText('Found: something answers at ide.example.com/agui');
    expect(screen.getByText('Whether it is an agent that works on tasks shows the first time you send it something.')).toBeTruthy();
    expect(backend.callsOf('agents.check')).toEqual([{ address: 'https://ide.example.com/agui', kind: 'agui' }]);
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(backend.callsOf('agents.add')).toEqual([{ address: 'https://ide.example.com/agui', kind: 'agui' }]));
    // The box is cleared for the next address.
    await waitFor(() => expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }).checked).toBe(false));
  });

  it('opens an added AG-UI endpoint on the conversation screen, following the thread main holds', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agui-1', url: 'https://ide.example.com/agui', display: 'ide.example.com/agui', addedAt: '2026-11-30T00:00:00Z', protocol: 'agui' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open ide.example.com/agui' }));
    await screen.findByText('No messages yet. Write one below.');
    expect(backend.callsOf('conversation.open')).toEqual([{ agentId: 'agui-1' }]);
    expect(backend.callsOf('agui.open').map((call) => call.agentId)).toContain('agui-1');
  });

  it('the demo tile opens the demo’s AG-UI side without asking main what it speaks', async () => {
    const { backend, user } = await renderApp();
    await user.click(screen.getByRole('button', { name: 'Watch an agent work' }));
    await screen.findByRole('heading', { level: 1, name: 'Built-in demo: an agent at work' });
    expect(backend.callsOf('demo.openAgui')).toHaveLength(1);
    expect(backend.callsOf('agents.identify')).toEqual([]);
    await waitFor(() => expect(backend.callsOf('conversation.open')).toEqual([{ agentId: builtInAguiDemoId }]));
  });
});

describe('plain AG-UI: editing the last message', () => {
  const notice =
    /Editing your last message\. Sending adds it as a new message: the earlier one and its answer stay in this chat, and the agent still gets them\./;

  function answered(backend: FakeBackend, run: string, text: string) {
    events(backend, [
      { type: 'RUN_STARTED', threadId, runId: run },
      { type: 'TEXT_MESSAGE_START', messageId: `a-${run}`, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: `a-${run}`, delta: text },
      { type: 'TEXT_MESSAGE_END', messageId: `a-${run}` },
      { type: 'RUN_FINISHED', threadId, runId: run },
    ]);
  }

  it('Edit on the last message (not while a run goes) puts it in the composer; sending it is a new message, the earlier exchange stays', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Deploy to stagng');
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    answered(backend, run, 'Which stage?');
    await waitFor(() => expect(status()).toBe('Answered'));

    const message = within(log()).getByText('Deploy to stagng').closest('.message') as HTMLElement;
    await user.click(within(message).getByRole('button', { name: 'Edit' }));
    expect(composer().value).toBe('Deploy to stagng');
    expect(document.activeElement).toBe(composer());
    expect(screen.getByText(notice)).toBeTruthy();

    await user.clear(composer());
    await user.type(composer(), 'Deploy to staging{Enter}');
    await waitFor(() => expect(backend.callsOf('agui.send')).toHaveLength(2));
    const [first, second] = backend.callsOf('agui.send');
    expect(second?.text).toBe('Deploy to staging');
    expect(second?.messageId).not.toBe(first?.messageId);
    await within(log()).findByText('Deploy to staging');
    expect(within(log()).getByText('Deploy to stagng')).toBeTruthy();
    expect(within(log()).getByText('Which stage?')).toBeTruthy();
    expect(screen.queryByText(notice)).toBeNull();
  });

  it('ArrowUp in the empty composer edits the last message; Escape gives back the earlier draft', async () => {
    const { backend, user } = await renderScreen();
    const run = await sendMessage(user, backend, 'Plan the stack');
    answered(backend, run, 'Planned.');
    await waitFor(() => expect(status()).toBe('Answered'));

    await user.click(composer());
    await user.keyboard('{ArrowUp}');
    expect(composer().value).toBe('Plan the stack');
    expect(screen.getByText(notice)).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(composer().value).toBe('');
    expect(screen.queryByText(notice)).toBeNull();

    await user.type(composer(), 'draft');
    await user.click(within(log()).getByRole('button', { name: 'Edit' }));
    expect(composer().value).toBe('Plan the stack');
    await user.click(screen.getByRole('button', { name: 'Stop editing' }));
    expect(composer().value).toBe('draft');
    expect(backend.callsOf('agui.send')).toHaveLength(1);
  });
});
