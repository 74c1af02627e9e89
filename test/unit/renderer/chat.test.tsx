import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { answer, end, goHome, messageField, openDemo, openDetails, push, send, sendButton, transcript } from './chat-helpers';
import { createFakeBackend, demoView } from './fake-api';
import { renderApp } from './render-app';

describe('chat: opening', () => {
  it('opens the demo from Home: connect, the server name as the focused heading, its description behind Details', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    expect(backend.callsOf('demo.open')).toHaveLength(1);
    expect(backend.callsOf('talkie.connect')).toEqual([{ agentId: builtInDemoAgentId }]);
    const heading = screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' });
    expect(document.activeElement).toBe(heading);
    // One line of header: the description is the agent's detail, not a band above the conversation.
    expect(screen.queryByText('A demo agent inside AgentDesk')).toBeNull();
    const details = await openDetails(user);
    expect(details.getByText('A demo agent inside AgentDesk')).toBeTruthy();
    expect(details.getByText('Server: 127.0.0.1:41234')).toBeTruthy();
    // The demo never offers Sign out.
    expect(details.queryByRole('button', { name: 'Sign out' })).toBeNull();
  });

  it('opens an added agent from its Open button', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({ agentId: 'a1', name: 'Example CRM', issuer: 'https://crm.example.com' });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Example CRM' })).toBeTruthy();
    expect(backend.callsOf('talkie.connect')).toEqual([{ agentId: 'a1' }]);
    expect((await openDetails(user)).getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('shows progress while connecting, then the error with Retry', async () => {
    const backend = createFakeBackend();
    const release = backend.holdNext('talkie.connect');
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Chat with the demo assistant' }));
    expect(await screen.findByText('Connecting to Built-in demo…')).toBeTruthy();
    backend.failNext('talkie.connect', { code: 'network_error', message: 'connect ECONNREFUSED 127.0.0.1:41234', retryable: true });
    await act(async () => release());
    // Words for people (#15): the main line is a sentence; the errno is only behind Details.
    const alert = await screen.findByText(/Could not connect to Built-in demo\. The server refused the connection: it may not be running\./);
    const raw = within(alert).getByText('connect ECONNREFUSED 127.0.0.1:41234');
    expect(raw.closest('[hidden]')).not.toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Details' }));
    expect(raw.closest('[hidden]')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    expect(backend.callsOf('talkie.connect')).toHaveLength(2);
  });

  // #26: Escape never leaves a conversation (it used to go back to Home from an empty field).
  it('Escape never leaves the conversation, with or without a draft, during an answer or not; Home keeps the draft and the answer', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    await user.keyboard('{Escape}');
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    const runKey = await send(user, backend, 'hello');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'text.start', messageId: 'a-1' },
      { type: 'text.delta', messageId: 'a-1', delta: 'Half' },
    );
    (document.activeElement as HTMLElement | null)?.blur();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    expect(transcript().getByText(/Half/)).toBeTruthy();
    await push(backend, runKey, { type: 'text.end', messageId: 'a-1' }, { type: 'run.finished' });
    await end(backend, runKey, { kind: 'finished' }, { threadId: 't-1' });

    await user.type(messageField(), 'half a thought');
    await user.keyboard('{Escape}');
    expect(messageField().value).toBe('half a thought');
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();

    await goHome(user);
    await user.click(screen.getByRole('button', { name: 'Chat with the demo assistant' }));
    await screen.findByRole('textbox', { name: 'Message' });
    expect(messageField().value).toBe('half a thought');
    // Coming back to the agent opens its last conversation, not an empty new one.
    expect(await transcript().findByText('Half')).toBeTruthy();
  });

  it('applies the server accent as CSS custom properties with a readable text colour', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.views[builtInDemoAgentId] = demoView({ accent: '#ffdd00' });
    await openDemo(backend);
    const root = document.querySelector<HTMLElement>('.conversation');
    expect(root?.style.getPropertyValue('--accent')).toBe('#ffdd00');
    expect(root?.style.getPropertyValue('--on-accent')).toBe('#000000');
    expect(root?.getAttribute('style')).not.toContain('url(');
  });

  it('ignores an accent that is not #rrggbb', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.views[builtInDemoAgentId] = demoView({ accent: 'red;x' });
    await openDemo(backend);
    expect(document.querySelector<HTMLElement>('.conversation')?.style.getPropertyValue('--accent')).toBe('');
  });
});

describe('chat: sending and streaming', () => {
  it('shows the user message at once and streams the answer pushed by talkie.update', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Hello there');

    const [request] = backend.callsOf('talkie.send');
    expect(request?.agentId).toBe(builtInDemoAgentId);
    expect(request?.text).toBe('Hello there');
    expect(request?.threadId).toBeUndefined();
    expect(request?.messageId).toMatch(/^msg-[0-9a-f-]{36}$/);
    expect(transcript().getByText('Hello there')).toBeTruthy();
    expect(messageField().value).toBe('');
    expect(screen.getByText('Agent is answering…')).toBeTruthy();

    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'text.start', messageId: 'm1' },
      { type: 'text.delta', messageId: 'm1', delta: 'Hi, ' },
    );
    expect(transcript().getByText('Hi,')).toBeTruthy();
    await push(backend, runKey, { type: 'text.delta', messageId: 'm1', delta: 'how can I help?' });
    expect(transcript().getByText('Hi, how can I help?')).toBeTruthy();
    expect(document.querySelector('.message--streaming')).not.toBeNull();

    await push(backend, runKey, { type: 'text.end', messageId: 'm1' }, { type: 'run.finished' });
    await end(backend, runKey, { kind: 'finished' }, { threadId: 't-1' });
    expect(document.querySelector('.message--streaming')).toBeNull();
    expect(screen.getByText('Answered')).toBeTruthy();
    // The polite live region is the status line, never the transcript.
    const region = screen.getByRole('log', { name: 'Conversation' });
    expect(region.getAttribute('aria-live')).toBe('off');
    expect(region.parentElement?.closest('[aria-live]')).toBeNull();
    expect(screen.getByText('Answered').closest('[aria-live="polite"]')).not.toBeNull();

    // The next message goes to the same thread.
    const second = await send(user, backend, 'And more');
    expect(backend.callsOf('talkie.send')[1]?.threadId).toBe('t-1');
    expect(second).toBe('run-2');
  });

  it('Enter while an answer streams queues the message: shown as waiting (Take back removes one), sent to the same thread when the answer ended', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'First');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'text.start', messageId: 'a1' },
      { type: 'text.delta', messageId: 'a1', delta: 'Still writing' },
    );
    await user.type(messageField(), 'Second{Enter}');
    await user.type(messageField(), 'Third{Enter}');
    expect(messageField().value).toBe('');
    const waiting = await transcript().findAllByText('Waiting: sent when the agent has answered');
    expect(waiting).toHaveLength(2);
    expect(backend.callsOf('talkie.send')).toHaveLength(1);
    const third = transcript().getByText('Third').closest('.message') as HTMLElement;
    await user.click(within(third).getByRole('button', { name: 'Take back' }));
    await waitFor(() => expect(transcript().queryByText('Third')).toBeNull());

    await push(backend, runKey, { type: 'text.end', messageId: 'a1' }, { type: 'run.finished' });
    await end(backend, runKey, { kind: 'finished' }, { threadId: 't-1' });
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(2));
    expect(backend.callsOf('talkie.send')[1]).toMatchObject({ text: 'Second', threadId: 't-1' });
    await waitFor(() => expect(transcript().queryByText('Waiting: sent when the agent has answered')).toBeNull());
    expect(transcript().getAllByText('Second')).toHaveLength(1);
  });

  it('sends with Enter and adds a line with Shift+Enter', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    await user.type(messageField(), 'first line{Shift>}{Enter}{/Shift}second line');
    expect(messageField().value).toBe('first line\nsecond line');
    expect(backend.callsOf('talkie.send')).toHaveLength(0);
    await user.keyboard('{Enter}');
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(1));
    expect(backend.callsOf('talkie.send')[0]?.text).toBe('first line\nsecond line');
  });

  it('ignores updates of other runs and other agents', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Hello');
    await push(backend, 'run-other', { type: 'text.start', messageId: 'x' }, { type: 'text.delta', messageId: 'x', delta: 'not mine' });
    act(() => backend.emit('talkie.update', { agentId: 'a-other', runKey, update: { type: 'text.delta', messageId: 'y', delta: 'other agent' } }));
    expect(transcript().queryByText('not mine')).toBeNull();
    expect(transcript().queryByText('other agent')).toBeNull();
    await answer(backend, runKey, 'mine');
    expect(transcript().getByText('mine')).toBeTruthy();
  });

  it('keeps updates that arrive before the send answer and applies them once the runKey is known', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const release = backend.holdNext('talkie.send');
    await user.type(messageField(), 'Quick');
    await user.click(sendButton());
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(1));
    await push(
      backend,
      'run-1',
      { type: 'run.started', threadId: 't-1', runId: 'run-1' },
      { type: 'text.start', messageId: 'm' },
      { type: 'text.delta', messageId: 'm', delta: 'Early bird' },
    );
    expect(transcript().queryByText('Early bird')).toBeNull();
    await act(async () => release());
    await waitFor(() => expect(transcript().getByText('Early bird')).toBeTruthy());
  });

  it('counts characters and disables Send over the server limit', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.views[builtInDemoAgentId] = demoView({ maxMessageChars: 10 });
    const { user } = await openDemo(backend);
    expect(screen.getByText('0 / 10')).toBeTruthy();
    await user.type(messageField(), '0123456789');
    expect(screen.getByText('10 / 10')).toBeTruthy();
    expect(sendButton().disabled).toBe(false);
    await user.type(messageField(), 'X');
    expect(screen.getByText('11 / 10')).toBeTruthy();
    expect(sendButton().disabled).toBe(true);
    expect(screen.getByText('The message is too long: at most 10 characters.')).toBeTruthy();
    expect(messageField().getAttribute('aria-invalid')).toBe('true');
    await user.keyboard('{Enter}');
    expect(backend.callsOf('talkie.send')).toHaveLength(0);
  });

  it('keeps a message that could not be sent, with Retry that reuses its messageId', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    backend.failNext('talkie.send', { code: 'network_error', message: 'The agent did not answer in time.', retryable: true });
    await user.type(messageField(), 'Important{Enter}');
    const item = await transcript().findByText('Important');
    const message = item.closest('.message') as HTMLElement;
    await waitFor(() => expect(within(message).getByText(/Not sent\./)).toBeTruthy());
    expect(within(message).getByText(/The agent did not answer in time\./)).toBeTruthy();
    // The message waits in the conversation with Retry, not in the composer (it emptied as it was sent).
    expect(messageField().value).toBe('');

    await user.click(within(message).getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(2));
    const [first, second] = backend.callsOf('talkie.send');
    expect(second?.messageId).toBe(first?.messageId);
    expect(second?.text).toBe('Important');
    expect(second?.threadId).toBe(first?.threadId);
    // Still one message, no longer failed.
    expect(transcript().getAllByText('Important')).toHaveLength(1);
    await waitFor(() => expect(transcript().queryByText(/Not sent/)).toBeNull());
  });

  it('marks the message failed when the run ends as not_sent', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Lost');
    await end(backend, runKey, { kind: 'not_sent', code: 'net_timeout', message: 'The server did not answer.', retryable: true });
    expect(transcript().getByText(/Not sent\./)).toBeTruthy();
    await user.click(transcript().getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(2));
    expect(backend.callsOf('talkie.send')[1]?.messageId).toBe(backend.callsOf('talkie.send')[0]?.messageId);
  });

  it('Cancel calls talkie.cancel with the runKey and the run ends as Cancelled', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Slow please');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'text.start', messageId: 'm' },
      { type: 'text.delta', messageId: 'm', delta: 'Part 1.' },
    );
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(backend.callsOf('talkie.cancel')).toEqual([{ agentId: builtInDemoAgentId, runKey }]));
    await end(backend, runKey, { kind: 'cancelled' }, { threadId: 't-1' });
    expect(screen.getByText('Cancelled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();
    expect(transcript().getByText('Part 1.')).toBeTruthy();
  });

  it('replaces the transcript with the stored thread after a dropped stream', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Are you there?');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'text.start', messageId: 'm' },
      { type: 'text.delta', messageId: 'm', delta: 'Half an ans' },
    );
    const [request] = backend.callsOf('talkie.send');
    await end(
      backend,
      runKey,
      { kind: 'interrupted', message: 'socket hang up' },
      {
        threadId: 't-1',
        items: [
          { kind: 'user', id: request?.messageId ?? '', text: 'Are you there?', state: 'sent' },
          { kind: 'assistant', id: 'stored', text: 'The whole stored answer.', streaming: false },
        ],
      },
    );
    expect(transcript().queryByText('Half an ans')).toBeNull();
    expect(transcript().getByText('The whole stored answer.')).toBeTruthy();
    expect(screen.getByText('The connection dropped; this is the answer the server stored.')).toBeTruthy();
  });

  it('offers Reload after a dropped stream without a stored answer', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threadItems['t-1'] = [{ kind: 'assistant', id: 'stored', text: 'Reloaded answer', streaming: false }];
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Hello');
    await push(backend, runKey, { type: 'run.started', threadId: 't-1', runId: runKey });
    await end(backend, runKey, { kind: 'interrupted', message: 'socket hang up' }, { threadId: 't-1' });
    expect(screen.getByText('The answer broke off.')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    expect(await transcript().findByText('Reloaded answer')).toBeTruthy();
    expect(backend.callsOf('talkie.thread')).toEqual([{ agentId: builtInDemoAgentId, threadId: 't-1' }]);
  });

  it('shows a run error with Retry that sends the last message again with the same messageId', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'talkie-test:error');
    await push(
      backend,
      runKey,
      { type: 'run.started', threadId: 't-1', runId: runKey },
      { type: 'run.error', code: 'upstream_unavailable', message: 'The model provider is unavailable (test).', retryable: true },
    );
    await end(
      backend,
      runKey,
      { kind: 'error', code: 'upstream_unavailable', message: 'The model provider is unavailable (test).', retryable: true },
      { threadId: 't-1' },
    );
    expect(transcript().getByText('The model provider is unavailable (test).')).toBeTruthy();
    await user.click(transcript().getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(2));
    const [first, second] = backend.callsOf('talkie.send');
    expect(second?.messageId).toBe(first?.messageId);
    expect(second?.text).toBe('talkie-test:error');
    expect(second?.threadId).toBe('t-1');
    expect(transcript().queryByText('The model provider is unavailable (test).')).toBeNull();
  });

  it('shows the signed-in user and usage meters behind Details, updated by usage events', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    let details = await openDetails(user);
    expect(await details.findByText('Signed in as Demo User')).toBeTruthy();
    const bar = details.getByRole('progressbar', { name: 'Tokens today' }) as HTMLProgressElement;
    expect(bar.value).toBe(12000);
    expect(bar.max).toBe(400000);
    expect(details.getByText('12,000 / 400,000 tokens')).toBeTruthy();
    await user.click(details.getByRole('button', { name: 'Close' }));

    const runKey = await send(user, backend, 'usage');
    await push(backend, runKey, { type: 'usage', usage: [{ label: 'Tokens today', used: 13500, limit: 400000, unit: 'tokens' }] });
    details = await openDetails(user);
    expect(details.getByText('13,500 / 400,000 tokens')).toBeTruthy();
  });
});
