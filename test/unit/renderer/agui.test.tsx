import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { aguiThreadSchema } from '../../../src/shared/agui/ipc-schemas';
import { addUserMessage, applyAguiEvent, beginRun, createThread, markStreamDropped, type AguiThreadView } from '../../../src/shared/agui/run-model';
import { diffThread } from '../../../src/shared/agui/thread-update';
import { builtInAguiDemoId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/ipc/errors';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AguiScreen } from '../../../src/renderer/screens/agui/AguiScreen';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

const agentId = 'agent-ide';
/** The fake main's thread id for an agent (`thread-<agentId>`). */
const threadId = `thread-${agentId}`;

type Event = Record<string, unknown> & { type: string };

beforeEach(() => {
  // The screen renders the thread once per animation frame; here frames run at once.
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

type Resume = Parameters<typeof beginRun>[1]['resume'];
type AguiBackend = FakeBackend & {
  /**
   * Main's side of a run, as the AG-UI service does it: folds the events into main's thread (the
   * run begun as main begins it) and sends the renderer what changed (`agui.update`).
   */
  stream(runId: string, list: Event[]): void;
  /** Main ends the run with its thread (`agui.runEnded`). */
  end(runId: string, thread: AguiThreadView): void;
};

/** A fake main whose runs have known ids: run-1, run-2, … in the order they are asked for. */
function backendWithRuns(): AguiBackend {
  const backend = createFakeBackend();
  let runs = 0;
  const resumes = new Map<string, Resume>();
  const next = (resume?: Resume) => {
    const runId = `run-${++runs}`;
    if (resume !== undefined) resumes.set(runId, resume);
    return ok({ runId });
  };
  const answeredSends = new Set<string>();
  backend.handle('agui.send', ({ agentId: id, messageId, text }) => {
    answeredSends.add(messageId);
    const view = backend.state.agui[id];
    if (view) backend.state.agui[id] = { ...view, thread: addUserMessage(view.thread, { id: messageId, text }) };
    return next();
  });
  // Main's resume[]: each answer as sent (what the screen begins its run with too).
  backend.handle('agui.resume', ({ answers }) => next(Object.entries(answers).map(([interruptId, answer]) => ({ interruptId, ...answer }))));
  backend.handle('agui.retry', () => next());
  const mainThreads = new Map<string, AguiThreadView>();
  const begin = (runId: string): AguiThreadView => {
    let thread = backend.state.agui[agentId]!.thread;
    // A send main has not answered yet (held) already added the user's message in main.
    const sent = backend.callsOf('agui.send').at(-1);
    if (sent !== undefined && !answeredSends.has(sent.messageId)) thread = addUserMessage(thread, { id: sent.messageId, text: sent.text });
    const resume = resumes.get(runId);
    return beginRun(thread, { runId, ...(resume === undefined ? {} : { resume }) });
  };
  return Object.assign(backend, {
    stream(runId: string, list: Event[]) {
      const before = mainThreads.get(runId) ?? begin(runId);
      const thread = list.reduce<AguiThreadView>((view, event) => applyAguiEvent(view, event), before);
      mainThreads.set(runId, thread);
      backend.state.agui[agentId] = { ...backend.state.agui[agentId]!, thread };
      const update = diffThread(before, thread);
      if (update !== undefined) act(() => backend.emit('agui.update', { agentId, runId, update }));
    },
    end(runId: string, thread: AguiThreadView) {
      mainThreads.set(runId, thread);
      backend.state.agui[agentId] = { ...backend.state.agui[agentId]!, thread };
      act(() => backend.emit('agui.runEnded', { agentId, runId, thread: aguiThreadSchema.parse(thread) }));
    },
  });
}

async function renderScreen(backend: AguiBackend = backendWithRuns()) {
  const headingRef = createRef<HTMLHeadingElement>();
  const onBack = vi.fn();
  const user = userEvent.setup();
  const view = render(
    <I18nProvider setting="en">
      <AguiScreen api={backend.api} headingRef={headingRef} agentId={agentId} label="IDE agent" onBack={onBack} />
    </I18nProvider>,
  );
  await screen.findByText('No messages yet. Write something to start a run.');
  return { backend, user, onBack, ...view };
}

function events(backend: AguiBackend, runId: string, list: Event[]) {
  backend.stream(runId, list);
}

function composer(): HTMLTextAreaElement {
  return screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
}

function status(): string {
  const line = document.querySelector('.run-status__text');
  return line?.textContent ?? '';
}

async function sendMessage(user: ReturnType<typeof userEvent.setup>, backend: FakeBackend, text: string) {
  await user.type(composer(), `${text}{Enter}`);
  await waitFor(() => expect(backend.callsOf('agui.send').at(-1)?.text).toBe(text));
  await waitFor(() => expect(status()).toBe('Agent is answering…'));
}

/** A run that uses the AG-UI 1.0 event types the screen draws (shapes as in test/unit/agui/run-model.test.ts). */
function fullRun(runId: string): Event[] {
  return [
    { type: 'RUN_STARTED', threadId, runId },
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
    { type: 'ACTIVITY_SNAPSHOT', messageId: 'act-1', activityType: 'PLAN', content: { steps: [{ title: 'build', done: false }] } },
    { type: 'ACTIVITY_DELTA', messageId: 'act-1', activityType: 'PLAN', patch: [{ op: 'replace', path: '/steps/0/done', value: true }] },
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

function interruptRun(runId: string): Event[] {
  return [
    { type: 'RUN_STARTED', threadId, runId },
    { type: 'TOOL_CALL_START', toolCallId: 'tc-9', toolCallName: 'drop_database' },
    { type: 'TOOL_CALL_END', toolCallId: 'tc-9' },
    {
      type: 'RUN_FINISHED',
      threadId,
      runId,
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

function interruptSection(title: string): HTMLElement {
  return screen.getByRole('region', { name: title });
}

describe('plain AG-UI screen', () => {
  it('opens the server: label, endpoint host, an empty thread, and nothing to retry', async () => {
    const { backend } = await renderScreen();
    expect(backend.callsOf('agui.open')).toEqual([{ agentId }]);
    expect(screen.getByRole('heading', { level: 1, name: 'IDE agent' })).toBeTruthy();
    expect(screen.getByText('Endpoint: 127.0.0.1:9')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(status()).toBe('');
  });

  it('sends text as a run and draws every part of the streamed events', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Deploy the web stack');
    expect(backend.callsOf('agui.send')).toEqual([{ agentId, messageId: expect.stringMatching(/^msg-/), text: 'Deploy the web stack' }]);
    const transcript = screen.getByRole('region', { name: 'Messages' });
    expect(within(transcript).getByText('Deploy the web stack')).toBeTruthy();
    // While the run goes, Cancel replaces Send.
    expect(screen.queryByRole('button', { name: 'Send' })).toBeNull();

    events(backend, 'run-1', fullRun('run-1'));

    // Reasoning: a collapsed "Thinking" disclosure; the encrypted part is never shown, only mentioned.
    const thinking = within(transcript).getByText('Thinking').closest('details') as HTMLDetailsElement;
    expect(thinking.open).toBe(false);
    expect(thinking.textContent).toContain('Checking the stack before deploying.');
    expect(thinking.textContent).toContain('Part of the reasoning is encrypted and not shown.');
    expect(document.body.innerHTML).not.toContain('SECRET-CIPHERTEXT');

    // Assistant text is Markdown without HTML: the script and image stay literal text.
    expect(within(transcript).getByText('web').tagName).toBe('STRONG');
    expect(transcript.textContent).toContain('<script>window.pwned = true</script>');
    expect(transcript.querySelector('script, img')).toBeNull();
    expect((window as { pwned?: boolean }).pwned).toBeUndefined();

    // The tool call: name, state, pretty arguments, result.
    const tool = within(transcript).getByText('Tool: deploy').closest('details') as HTMLDetailsElement;
    expect(within(tool).getByText('completed')).toBeTruthy();
    expect(tool.querySelector('pre')?.textContent).toBe('{\n  "stack": "web",\n  "n": 2\n}');
    expect(tool.textContent).toContain('deployed 2 instances');

    // The activity panel, updated in place by the delta.
    const activities = within(transcript).getAllByRole('region', { name: 'Activity: PLAN' });
    expect(activities).toHaveLength(1);
    expect(activities[0]?.querySelector('pre')?.textContent).toContain('"done": true');

    // Two invocations of the same subagent: two groups, each with its own text.
    const groups = within(transcript).getAllByRole('region', { name: 'Subagent: researcher' });
    expect(groups).toHaveLength(2);
    expect(groups[0]?.textContent).toContain('first invocation text');
    expect(groups[0]?.textContent).not.toContain('second invocation text');
    expect(groups[1]?.textContent).toContain('second invocation text');
    expect(groups[1]?.textContent).toContain('quota exceeded');

    // A known CUSTOM namespace is drawn, an unknown one and RAW are not.
    expect(transcript.textContent).toContain('Deployment window is open.');
    expect(document.body.textContent).not.toContain('ignored namespace');
    expect(document.body.textContent).not.toContain('native-raw-event');

    // Steps, state and protocol notes outside the transcript.
    const steps = screen.getByRole('region', { name: 'Steps' });
    expect(within(steps).getAllByRole('listitem').map((entry) => entry.textContent)).toEqual(['✓ plan (done)', '✓ deploy (done)']);
    const state = screen.getByText('State').closest('details') as HTMLDetailsElement;
    expect(state.open).toBe(false);
    expect(JSON.parse(state.querySelector('pre')?.textContent ?? '')).toEqual({ count: 2, tags: [] });
    const notes = screen.getByText('Protocol notes (1)').closest('details') as HTMLDetailsElement;
    expect(notes.textContent).toContain('event_unknown_type');

    events(backend, 'run-1', [{ type: 'RUN_FINISHED', threadId, runId: 'run-1' }]);
    await waitFor(() => expect(status()).toBe('Finished'));
    expect(screen.getByRole('button', { name: 'Send' })).toBeTruthy();
  });

  it('keeps events that arrive before main answered with their run id, and applies them after it', async () => {
    const { backend, user } = await renderScreen();
    const release = backend.holdNext('agui.send');
    await user.type(composer(), 'Quick{Enter}');
    await waitFor(() => expect(backend.callsOf('agui.send')).toHaveLength(1));
    events(backend, 'run-1', [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'early bird' }]);
    expect(screen.queryByText('early bird')).toBeNull();
    release();
    await screen.findByText('early bird');
    events(backend, 'run-1', [{ type: 'TEXT_MESSAGE_END', messageId: 'm' }, { type: 'RUN_FINISHED', threadId, runId: 'run-1' }]);
    await waitFor(() => expect(status()).toBe('Finished'));
    // The user's message comes before the answer, and nothing was out of place.
    const transcript = screen.getByRole('region', { name: 'Messages' });
    expect(transcript.textContent?.indexOf('Quick')).toBeLessThan(transcript.textContent?.indexOf('early bird') ?? -1);
    expect(screen.queryByText(/Protocol notes/)).toBeNull();
  });

  it('shows the deprecated THINKING_* events (as the Python SDK sends them) as reasoning, with one protocol note', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Think');
    events(backend, 'run-1', [
      { type: 'RUN_STARTED', threadId, runId: 'run-1' },
      { type: 'THINKING_START', title: 'Planning' },
      { type: 'THINKING_TEXT_MESSAGE_START' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'Old-style ' },
      { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: 'reasoning.' },
      { type: 'THINKING_TEXT_MESSAGE_END' },
      { type: 'THINKING_END' },
      { type: 'RUN_FINISHED', threadId, runId: 'run-1' },
    ]);
    await waitFor(() => expect(status()).toBe('Finished'));
    const transcript = screen.getByRole('region', { name: 'Messages' });
    const thinking = within(transcript).getByText('Thinking').closest('details') as HTMLDetailsElement;
    expect(thinking.textContent).toContain('Old-style reasoning.');
    const notes = screen.getByText('Protocol notes (1)').closest('details') as HTMLDetailsElement;
    expect(notes.textContent).toContain('event_deprecated_thinking');
  });

  it('replaces its copy with the thread main sends at the end of the run', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Hello');
    events(backend, 'run-1', [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'streamed' }]);
    await screen.findByText('streamed');
    // Main's thread is the authority: here it says the run failed.
    let thread: AguiThreadView = beginRun(addUserMessage(createThread(threadId), { id: 'u', text: 'Hello' }), { runId: 'run-1' });
    thread = applyAguiEvent(thread, { type: 'RUN_STARTED', threadId, runId: 'run-1' });
    thread = applyAguiEvent(thread, { type: 'RUN_ERROR', message: 'The model is overloaded.', code: 'overloaded' });
    backend.end('run-1', thread);
    await waitFor(() => expect(status()).toBe('The run failed: The model is overloaded.'));
    expect(screen.queryByText('streamed')).toBeNull();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });

  it('cancels a running run', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Long job');
    events(backend, 'run-1', [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }]);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(backend.callsOf('agui.cancel')).toEqual([{ agentId }]));
  });

  it('shows a dropped stream as interrupted, and Retry starts the turn again', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Deploy');
    events(backend, 'run-1', [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'half an ans' }]);
    let thread: AguiThreadView = beginRun(addUserMessage(createThread(threadId), { id: 'u', text: 'Deploy' }), { runId: 'run-1' });
    for (const event of [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'TEXT_MESSAGE_START', messageId: 'm', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm', delta: 'half an ans' }]) thread = applyAguiEvent(thread, event);
    thread = markStreamDropped(thread, 'The stream ended without RUN_FINISHED.');
    backend.end('run-1', thread);

    await waitFor(() => expect(status()).toBe('The connection dropped before the run finished.'));
    expect(screen.getByText('half an ans')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('agui.retry')).toEqual([{ agentId }]));
    await waitFor(() => expect(status()).toBe('Agent is answering…'));
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    events(backend, 'run-2', [{ type: 'RUN_STARTED', threadId, runId: 'run-2' }, { type: 'TEXT_MESSAGE_START', messageId: 'm2', role: 'assistant' }, { type: 'TEXT_MESSAGE_CONTENT', messageId: 'm2', delta: 'the whole answer' }, { type: 'TEXT_MESSAGE_END', messageId: 'm2' }, { type: 'RUN_FINISHED', threadId, runId: 'run-2' }]);
    await screen.findByText('the whole answer');
    expect(status()).toBe('Finished');
  });

  it('draws one form per interrupt, checks every form, and answers every open interrupt at once', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Deploy to production');
    events(backend, 'run-1', interruptRun('run-1'));
    await waitFor(() => expect(status()).toBe('Waiting for your answer'));

    // The composer is disabled with a hint while the agent waits.
    expect(composer().matches(':disabled')).toBe(true);
    expect(screen.getByText('Answer the agent’s request above first.')).toBeTruthy();

    const confirm = interruptSection('Please confirm');
    expect(within(confirm).getByText('Change demo-network?')).toBeTruthy();
    expect(within(confirm).getByText(/^Expires in /)).toBeTruthy();
    const input = interruptSection('The agent needs input');
    const generic = interruptSection('A request from the agent');
    // A reason no client knows is a detail: behind Details.
    expect(within(generic).getByText('Reason: vendor.review').closest('[hidden]')).toBeTruthy();
    // The message is plain text.
    expect(within(generic).getByText('Review <b>this</b>')).toBeTruthy();
    expect(within(generic).getByText('Expired — will be cancelled')).toBeTruthy();
    expect(within(generic).queryByRole('checkbox', { name: 'Cancel this request' })).toBeNull();
    const unsupported = interruptSection('Permission for a tool call');
    expect(within(unsupported).getByText('For the tool call drop_database')).toBeTruthy();
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
    expect(status()).toBe('Agent is answering…');
    // The focus was in the forms: it moves to the message field instead of the page.
    expect(document.activeElement).toBe(composer());
    events(backend, 'run-2', [{ type: 'RUN_STARTED', threadId, runId: 'run-2' }, { type: 'RUN_FINISHED', threadId, runId: 'run-2' }]);
    await waitFor(() => expect(status()).toBe('Finished'));
    expect(composer().matches(':disabled')).toBe(false);

    // What was answered stays in the thread, on the user's side, worded for people.
    const answers = within(screen.getByRole('region', { name: 'Messages' })).getAllByText(/^(Your answer|You cancelled this request)$/).map((kicker) => kicker.closest('li')!);
    expect(answers.map((entry) => entry.className)).toEqual(Array(4).fill('transcript__item transcript__item--user agui-entry--answer'));
    expect(within(answers[0]!).getByText('Change demo-network?')).toBeTruthy();
    expect(within(answers[0]!).getByText('Approve the change').nextElementSibling?.textContent).toBe('Yes');
    expect(within(answers[1]!).getByText('Tags').nextElementSibling?.textContent).toBe('safe');
    expect(within(answers[1]!).getByText('Instances').nextElementSibling?.textContent).toBe('3');
    expect(within(answers[2]!).getByText('You cancelled this request')).toBeTruthy();
  });

  it('sends "Cancel this request" as cancelled, and an interrupt without a schema as resolved', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Go');
    events(backend, 'run-1', [
      { type: 'RUN_STARTED', threadId, runId: 'run-1' },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: 'run-1',
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
    expect(within(first as HTMLElement).getByRole('checkbox', { name: 'Approve the change' }).matches(':disabled')).toBe(true);
    expect(within(second as HTMLElement).getByText(/No details are needed/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { a: { status: 'cancelled' }, b: { status: 'resolved' } } }]));
  });

  it('a tool approval starts from the call\'s arguments and sends editedArgs only when they were changed', async () => {
    const approvalRun = (runId: string, schema: Record<string, unknown>): Event[] => [
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'TOOL_CALL_START', toolCallId: `del-${runId}`, toolCallName: 'delete_file' },
      { type: 'TOOL_CALL_ARGS', toolCallId: `del-${runId}`, delta: '{"path": "notes/old-plan.md"}' },
      { type: 'TOOL_CALL_END', toolCallId: `del-${runId}` },
      { type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'interrupt', interrupts: [{ id: `approve-${runId}`, reason: 'tool_call', toolCallId: `del-${runId}`, responseSchema: schema }] } },
    ];
    // pydantic-ai 2.33's approval schema: editedArgs is an open object, shown as JSON with the current arguments.
    const pydantic = { type: 'object', properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object' }, reason: { type: 'string' } }, required: ['approved'] };
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Delete the old plan');
    events(backend, 'run-1', approvalRun('run-1', pydantic));
    const section = await screen.findByRole('region', { name: 'Permission for a tool call' });
    const args = within(section).getByRole<HTMLTextAreaElement>('textbox', { name: 'editedArgs' });
    expect(JSON.parse(args.value)).toEqual({ path: 'notes/old-plan.md' });
    await user.click(within(section).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toEqual([{ agentId, answers: { 'approve-run-1': { status: 'resolved', payload: { approved: true } } } }]));
    events(backend, 'run-2', [{ type: 'RUN_STARTED', threadId, runId: 'run-2' }, { type: 'RUN_FINISHED', threadId, runId: 'run-2' }]);
    await waitFor(() => expect(status()).toBe('Finished'));

    // The demo's shape: editedArgs with a path field, filled in; an edited path is sent (whole arguments).
    await sendMessage(user, backend, 'Delete it again');
    events(backend, 'run-3', approvalRun('run-3', { type: 'object', properties: { approved: { type: 'boolean' }, editedArgs: { type: 'object', properties: { path: { type: 'string' } } } }, required: ['approved'] }));
    const again = await screen.findByRole('region', { name: 'Permission for a tool call' });
    const path = within(within(again).getByRole('group', { name: 'editedArgs' })).getByRole<HTMLInputElement>('textbox', { name: 'path' });
    expect(path.value).toBe('notes/old-plan.md');
    await user.clear(path);
    await user.type(path, 'new');
    await user.click(within(again).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toHaveLength(2));
    expect(backend.callsOf('agui.resume')[1]).toEqual({ agentId, answers: { 'approve-run-3': { status: 'resolved', payload: { approved: true, editedArgs: { path: 'new' } } } } });
  });

  it('shows what a suspended Mastra tool carries in words (its tool, the reason in its metadata), the raw reason behind Details, and names the tool on its result', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Send 100 EUR to Alice');
    // As @ag-ui/mastra 1.1.2 sends it (measured with test/peers/mastra.mjs): the suspended call is never announced,
    // the interrupt has no message, and its metadata says what it is about.
    const mastra = { type: 'mastra_suspend', toolName: 'transfer_money', suspendPayload: { reason: 'Approve sending 100 EUR to Alice?' }, args: { amount: 100, to: 'Alice' }, runId: 'run-1' };
    events(backend, 'run-1', [
      { type: 'RUN_STARTED', threadId, runId: 'run-1' },
      { type: 'CUSTOM', name: 'on_interrupt', value: JSON.stringify(mastra) },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: 'run-1',
        outcome: { type: 'interrupt', interrupts: [{ id: 'run-1::transfer-1', reason: 'mastra:tool_suspend', toolCallId: 'transfer-1', responseSchema: { type: 'object', properties: { approved: { type: 'boolean' } }, required: ['approved'] }, metadata: { mastra } }] },
      },
    ]);
    await waitFor(() => expect(status()).toBe('Waiting for your answer'));
    const request = interruptSection('A request from the agent');
    expect(within(request).getByText('Approve sending 100 EUR to Alice?')).toBeTruthy();
    expect(within(request).getByText('For the tool call transfer_money')).toBeTruthy();
    // The raw reason is there, behind Details.
    expect(within(request).queryByText('Reason: mastra:tool_suspend')?.closest('[hidden]')).toBeTruthy();
    await user.click(within(request).getByRole('button', { name: 'Details' }));
    expect(within(request).getByText('Reason: mastra:tool_suspend').closest('[hidden]')).toBeNull();

    await user.click(within(request).getByRole('checkbox', { name: 'approved' }));
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    await waitFor(() => expect(backend.callsOf('agui.resume')).toHaveLength(1));
    events(backend, 'run-2', [
      { type: 'RUN_STARTED', threadId, runId: 'run-2' },
      { type: 'TOOL_CALL_RESULT', toolCallId: 'transfer-1', content: '{"sent":true,"amount":100}', messageId: 'result-1', role: 'tool' },
      { type: 'TEXT_MESSAGE_CHUNK', role: 'assistant', messageId: 'done-1', delta: 'The transfer is done.' },
      { type: 'RUN_FINISHED', threadId, runId: 'run-2' },
    ]);
    await screen.findByText('The transfer is done.');
    // The result of the call that was never announced is named after the tool the interrupt named.
    expect(screen.getByText('Tool: transfer_money')).toBeTruthy();
    expect(screen.queryByText('Tool result')).toBeNull();
  });

  it('keeps the forms when main refuses the answers, and says why', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Go');
    events(backend, 'run-1', [
      { type: 'RUN_STARTED', threadId, runId: 'run-1' },
      { type: 'RUN_FINISHED', threadId, runId: 'run-1', outcome: { type: 'interrupt', interrupts: [{ id: 'a', reason: 'confirmation', message: 'Restart?' }] } },
    ]);
    await screen.findByText('Restart?');
    backend.failNext('agui.resume', { code: 'rejected', message: 'The interrupt was already answered.' });
    await user.click(screen.getByRole('button', { name: 'Send answers' }));
    expect(await screen.findByText(/The answers were not sent\. The interrupt was already answered\./)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send answers' })).toBeTruthy();
    expect(status()).toBe('Waiting for your answer');
  });

  it('saves forwardedProps, and shows a refusal with its path', async () => {
    const { backend, user } = await renderScreen();
    await user.click(screen.getByText('Connection settings'));
    const field = screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'forwardedProps (JSON)' });
    expect(field.placeholder).toBe('{"iacCode":{"cwd":"/path"}}');
    expect(screen.getByText(/iac-code needs its working directory, for example \{"iacCode":\{"cwd":"\/path"\}\}/)).toBeTruthy();

    // Not JSON: refused here, before main is asked.
    fireEvent.change(field, { target: { value: '{"iacCode":' } });
    await user.click(screen.getByRole('button', { name: 'Save forwardedProps' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/forwardedProps is not JSON/);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('agui.setForwardedProps')).toEqual([]);

    // Main refuses what it cannot use, with the JSON pointer of the problem.
    backend.failNext('agui.setForwardedProps', { code: 'invalid_request', message: 'forwardedProps.iacCode.cwd must be an absolute path.', path: '/iacCode/cwd' });
    fireEvent.change(field, { target: { value: '{"iacCode":{"cwd":"relative"}}' } });
    await user.click(screen.getByRole('button', { name: 'Save forwardedProps' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('At /iacCode/cwd: forwardedProps.iacCode.cwd must be an absolute path.'));

    fireEvent.change(field, { target: { value: '{"iacCode":{"cwd":"/home/me/infra"}}' } });
    await user.click(screen.getByRole('button', { name: 'Save forwardedProps' }));
    await screen.findByText('forwardedProps saved.');
    expect(backend.callsOf('agui.setForwardedProps').at(-1)).toEqual({ agentId, json: '{"iacCode":{"cwd":"/home/me/infra"}}' });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('saves and removes the bearer token without ever showing it', async () => {
    const { backend, user } = await renderScreen();
    await user.click(screen.getByText('Connection settings'));
    expect(screen.getByText('No token is saved.')).toBeTruthy();
    const token = screen.getByLabelText<HTMLInputElement>('Bearer token');
    expect(token.type).toBe('password');
    await user.type(token, 'tok-123{Enter}');
    await screen.findByText('A token is saved.');
    expect(backend.callsOf('agui.useToken')).toEqual([{ agentId, token: 'tok-123' }]);
    expect(token.value).toBe('');
    await user.click(screen.getByRole('button', { name: 'Remove token' }));
    await screen.findByText('No token is saved.');
    expect(backend.callsOf('agui.useToken').at(-1)).toEqual({ agentId, token: '' });
  });

  it('starts a new thread', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'First topic');
    events(backend, 'run-1', [{ type: 'RUN_STARTED', threadId, runId: 'run-1' }, { type: 'RUN_FINISHED', threadId, runId: 'run-1' }]);
    backend.end('run-1', backend.state.agui[agentId]!.thread);
    await waitFor(() => expect(status()).toBe('Finished'));
    // The chat list (in place here: no shell around the screen) names the thread by its first message, marked open.
    const chats = within(screen.getByRole('navigation', { name: 'Chats' }));
    await waitFor(() => expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBe('true'));
    await user.click(chats.getByRole('button', { name: 'New chat' }));
    await screen.findByText('No messages yet. Write something to start a run.');
    expect(backend.callsOf('agui.newThread')).toEqual([{ agentId }]);
    const transcript = within(screen.getByRole('region', { name: 'Messages' }));
    expect(transcript.queryByText('First topic')).toBeNull();
    // The first thread is kept: listed, no longer open; it opens again from the list.
    await waitFor(() => expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBeNull());
    await user.click(chats.getByRole('button', { name: 'First topic' }));
    expect(await transcript.findByText('First topic')).toBeTruthy();
    expect(backend.callsOf('agui.openThread')).toEqual([{ agentId, threadId }]);
    expect(chats.getByRole('button', { name: 'First topic' }).getAttribute('aria-current')).toBe('true');
  });

  it('a long thread opens on its newest window: earlier messages on request, and a note that the oldest were removed', async () => {
    const backend = backendWithRuns();
    // Main's thread: 120 messages kept, 30 older ones removed by the conversation budget.
    const items = Array.from({ length: 120 }, (_, index) => ({ kind: 'user' as const, id: `u${index}`, text: `message ${index}` }));
    backend.state.agui[agentId] = { endpoint: 'http://127.0.0.1:9/agui', hasToken: false, forwardedProps: '{}', thread: { ...createThread(threadId), items, droppedItems: 30 } };
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <AguiScreen api={backend.api} headingRef={createRef()} agentId={agentId} label="IDE agent" onBack={vi.fn()} />
      </I18nProvider>,
    );
    const transcript = within(await screen.findByRole('region', { name: 'Messages' }));
    expect(await transcript.findByText('message 119')).toBeTruthy();
    expect(transcript.getByText('Earlier messages were removed to keep this chat small.')).toBeTruthy();
    // The page got the newest 50; the 70 before them come from main on request.
    expect(transcript.queryByText('message 69')).toBeNull();
    expect(transcript.getByText('message 70')).toBeTruthy();
    await user.click(transcript.getByRole('button', { name: 'Show 70 earlier messages' }));
    expect(await transcript.findByText('message 0')).toBeTruthy();
    expect(backend.callsOf('agui.earlier')).toEqual([{ agentId, threadId, before: 100 }]);
    expect(transcript.queryByRole('button', { name: /earlier messages/ })).toBeNull();
    expect(transcript.getByText('Earlier messages were removed to keep this chat small.')).toBeTruthy();
  });

  it('says why the server could not be opened, and tries again', async () => {
    const backend = backendWithRuns();
    backend.failNext('agui.open', { code: 'not_found', message: 'That agent is no longer in your list.' });
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <AguiScreen api={backend.api} headingRef={createRef()} agentId={agentId} label="IDE agent" onBack={vi.fn()} />
      </I18nProvider>,
    );
    expect(await screen.findByText(/IDE agent could not be opened\. That agent is no longer in your list\./)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await screen.findByText('No messages yet. Write something to start a run.');
    expect(backend.callsOf('agui.open')).toHaveLength(2);
  });
});

describe('plain AG-UI endpoints from Home', () => {
  it('adds an address as a plain AG-UI endpoint when the box is checked', async () => {
    const { backend, user } = await renderApp();
    await user.type(screen.getByRole('textbox', { name: 'Agent address' }), 'https://ide.example.com/agui');
    await user.click(screen.getByRole('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }));
    await user.click(screen.getByRole('button', { name: 'Check' }));
    await screen.findByText('Found: a server answers at ide.example.com/agui');
    expect(screen.getByText('An AG-UI server has nothing to read before a run, so any answer means a server is there. Whether it speaks AG-UI shows on its first run.')).toBeTruthy();
    expect(backend.callsOf('agents.check')).toEqual([{ address: 'https://ide.example.com/agui', kind: 'agui' }]);
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(backend.callsOf('agents.add')).toEqual([{ address: 'https://ide.example.com/agui', kind: 'agui' }]));
    // The box is cleared for the next address.
    await waitFor(() => expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'This is a plain AG-UI endpoint (POST + SSE)' }).checked).toBe(false));
  });

  it('opens an added AG-UI endpoint on the AG-UI screen', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agui-1', url: 'https://ide.example.com/agui', display: 'ide.example.com/agui', addedAt: '2026-11-30T00:00:00Z', protocol: 'agui' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open ide.example.com/agui' }));
    await screen.findByText('No messages yet. Write something to start a run.');
    expect(backend.callsOf('agui.open')).toEqual([{ agentId: 'agui-1' }]);
  });

  it('the demo tile opens the demo’s AG-UI side without asking main what it speaks', async () => {
    const { backend, user } = await renderApp();
    await user.click(screen.getByRole('button', { name: 'Watch an AG-UI run' }));
    await screen.findByRole('heading', { level: 1, name: 'Built-in demo: an AG-UI run' });
    expect(backend.callsOf('demo.openAgui')).toHaveLength(1);
    expect(backend.callsOf('agents.identify')).toEqual([]);
    await waitFor(() => expect(backend.callsOf('agui.open')).toEqual([{ agentId: builtInAguiDemoId }]));
  });
});

describe('plain AG-UI: editing the last message', () => {
  const notice = /Editing your last message\. Sending adds it as a new message: the earlier one and its answer stay in this thread, and the agent still gets them as history\./;

  function answered(backend: AguiBackend, runId: string, text: string) {
    events(backend, runId, [
      { type: 'RUN_STARTED', threadId, runId },
      { type: 'TEXT_MESSAGE_START', messageId: `a-${runId}`, role: 'assistant' },
      { type: 'TEXT_MESSAGE_CONTENT', messageId: `a-${runId}`, delta: text },
      { type: 'TEXT_MESSAGE_END', messageId: `a-${runId}` },
      { type: 'RUN_FINISHED', threadId, runId },
    ]);
  }

  it('Edit on the last message (not while a run goes) puts it in the composer; sending it is a new message, the earlier exchange stays', async () => {
    const { backend, user } = await renderScreen();
    await sendMessage(user, backend, 'Deploy to stagng');
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    answered(backend, 'run-1', 'Which stage?');
    await waitFor(() => expect(status()).toBe('Finished'));

    const message = screen.getByText('Deploy to stagng').closest('.message') as HTMLElement;
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
    expect(screen.getByText('Deploy to stagng')).toBeTruthy();
    expect(screen.getByText('Which stage?')).toBeTruthy();
    expect(screen.getByText('Deploy to staging')).toBeTruthy();
    expect(screen.queryByText(notice)).toBeNull();
  });

  it('ArrowUp in the empty composer edits the last message; Escape gives back the earlier draft', async () => {
    const { backend, user, onBack } = await renderScreen();
    await sendMessage(user, backend, 'Plan the stack');
    answered(backend, 'run-1', 'Planned.');
    await waitFor(() => expect(status()).toBe('Finished'));

    await user.click(composer());
    await user.keyboard('{ArrowUp}');
    expect(composer().value).toBe('Plan the stack');
    expect(screen.getByText(notice)).toBeTruthy();
    await user.keyboard('{Escape}');
    expect(composer().value).toBe('');
    expect(screen.queryByText(notice)).toBeNull();
    expect(onBack).not.toHaveBeenCalled();

    await user.type(composer(), 'draft');
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    expect(composer().value).toBe('Plan the stack');
    await user.click(screen.getByRole('button', { name: 'Stop editing' }));
    expect(composer().value).toBe('draft');
    expect(backend.callsOf('agui.send')).toHaveLength(1);
  });
});
