import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { answer, messageField, openDemo, openDetails, send, transcript } from './chat-helpers';
import { createFakeBackend, demoView, type ThreadSummary } from './fake-api';
import { renderApp } from './render-app';

const threads: ThreadSummary[] = [
  { id: 't-new', title: 'Offer for Alfa', channel: 'chat', createdAt: '2026-10-22T10:00:00Z', updatedAt: '2026-10-22T10:05:00Z' },
  { id: 't-old', title: '', channel: 'voice', createdAt: '2026-10-20T08:00:00Z' },
];

function threadList() {
  return within(screen.getByRole('navigation', { name: 'Chats' }));
}

describe('chat: threads (Talkie 1 §9)', () => {
  it('lists the threads newest first as given, opens one into the transcript', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    backend.state.talkie.threadItems['t-new'] = [
      { kind: 'user', id: 'm1', text: 'Prepare the offer', state: 'sent' },
      { kind: 'assistant', id: 'm2', text: 'Here is the **offer**.', streaming: false },
    ];
    const { user } = await openDemo(backend);
    await waitFor(() => expect(threadList().getAllByRole('listitem')).toHaveLength(2));
    const buttons = threadList()
      .getAllByRole('button')
      .filter((button) => !button.getAttribute('aria-label')?.startsWith('Delete') && button.textContent !== 'New chat');
    expect(buttons.map((button) => button.querySelector('.thread__title')?.textContent)).toEqual(['Offer for Alfa', 'Untitled chat']);
    // The list is in the shell's sidebar, under the open agent's entry.
    expect(screen.getByRole('navigation', { name: 'AgentDesk' }).contains(buttons[0]!)).toBe(true);
    expect(within(screen.getByRole('main')).queryByRole('navigation', { name: 'Chats' })).toBeNull();

    await user.click(threadList().getByRole('button', { name: /^Offer for Alfa/ }));
    expect(await transcript().findByText('Prepare the offer')).toBeTruthy();
    expect(transcript().getByText('offer').tagName).toBe('STRONG');
    expect(backend.callsOf('talkie.thread')).toEqual([{ agentId: builtInDemoAgentId, threadId: 't-new' }]);
    expect(
      threadList()
        .getByRole('button', { name: /^Offer for Alfa/ })
        .getAttribute('aria-current'),
    ).toBe('true');

    // A message now continues that thread.
    await send(user, backend, 'Add a discount');
    expect(backend.callsOf('talkie.send')[0]?.threadId).toBe('t-new');
  });

  // Renders 200, then 450 messages in jsdom: several seconds on a loaded CI machine. A limit on how
  // long it may run, not a timing assertion (the figure belongs to `npm run bench:render`).
  it('shows the newest 50 items of a long thread (the window main sends) and earlier ones on request, 200 at a time', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    backend.state.talkie.threadItems['t-new'] = Array.from({ length: 450 }, (_, i) => ({
      kind: 'user' as const,
      id: `m${i}`,
      text: `Message ${i}`,
      state: 'sent' as const,
    }));
    const { user } = await openDemo(backend);
    await user.click(await threadList().findByRole('button', { name: /^Offer for Alfa/ }));
    expect(await transcript().findByText('Message 449')).toBeTruthy();
    expect(transcript().getAllByRole('listitem')).toHaveLength(50);
    expect(transcript().queryByText('Message 399')).toBeNull();
    await user.click(transcript().getByRole('button', { name: 'Show 200 earlier messages' }));
    expect(await transcript().findByText('Message 200')).toBeTruthy();
    expect(transcript().queryByText('Message 199')).toBeNull();
    await user.click(transcript().getByRole('button', { name: 'Show 200 earlier messages' }));
    expect(await transcript().findByText('Message 0')).toBeTruthy();
    expect(transcript().getAllByRole('listitem')).toHaveLength(450);
    expect(transcript().queryByRole('button', { name: /earlier messages/ })).toBeNull();
  }, 60_000);

  it('a thread over the conversation budget opens on a window and says its oldest messages were removed', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    backend.state.talkie.threadItems['t-new'] = Array.from({ length: 30 }, (_, i) => ({
      kind: 'user' as const,
      id: `m${i}`,
      text: `Message ${i} ${'x'.repeat(150_000)}`,
      state: 'sent' as const,
    }));
    const { user } = await openDemo(backend);
    await user.click(await threadList().findByRole('button', { name: /^Offer for Alfa/ }));
    expect(await transcript().findByText(/^Message 29 x/)).toBeTruthy();
    // Main keeps 4,000,000 characters of the thread (26 of these messages): the 4 oldest are removed for good.
    expect(transcript().getByText('Earlier messages were removed to keep this chat small.')).toBeTruthy();
    // One window is at most 1,000,000 characters: six of these messages.
    expect(transcript().getAllByRole('listitem')).toHaveLength(6);
    await user.click(transcript().getByRole('button', { name: /^Show \d+ earlier messages$/ }));
    expect(await transcript().findByText(/^Message 23 x/)).toBeTruthy();
  }, 30_000);

  it('starts a new chat: empty transcript, no threadId, focus in the message field', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    backend.state.talkie.threadItems['t-new'] = [{ kind: 'user', id: 'm1', text: 'Old question', state: 'sent' }];
    const { user } = await openDemo(backend);
    await user.click(await threadList().findByRole('button', { name: /^Offer for Alfa/ }));
    await transcript().findByText('Old question');
    await user.click(threadList().getByRole('button', { name: 'New chat' }));
    expect(transcript().queryByText('Old question')).toBeNull();
    expect(document.activeElement).toBe(messageField());
    await send(user, backend, 'Fresh start');
    expect(backend.callsOf('talkie.send')[0]?.threadId).toBeUndefined();
  });

  it('asks before deleting a thread, and Keep deletes nothing', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    const { user } = await openDemo(backend);
    await user.click(await threadList().findByRole('button', { name: 'Delete Offer for Alfa' }));
    expect(backend.callsOf('talkie.deleteThread')).toEqual([]);
    const question = threadList().getByRole('group', { name: 'Delete Offer for Alfa?' });
    expect(within(question).getByText('Delete “Offer for Alfa”? The server deletes it for good.')).toBeTruthy();
    expect(document.activeElement).toBe(within(question).getByRole('button', { name: 'Keep' }));

    await user.click(within(question).getByRole('button', { name: 'Keep' }));
    expect(backend.callsOf('talkie.deleteThread')).toEqual([]);
    expect(document.activeElement).toBe(threadList().getByRole('button', { name: 'Delete Offer for Alfa' }));

    await user.click(threadList().getByRole('button', { name: 'Delete Offer for Alfa' }));
    await user.click(threadList().getByRole('button', { name: 'Yes, delete Offer for Alfa' }));
    await waitFor(() => expect(backend.callsOf('talkie.deleteThread')).toEqual([{ agentId: builtInDemoAgentId, threadId: 't-new' }]));
    await waitFor(() => expect(threadList().getAllByRole('listitem')).toHaveLength(1));
    expect(threadList().queryByText('Offer for Alfa')).toBeNull();
    expect(document.activeElement).toBe(threadList().getByRole('button', { name: 'New chat' }));
    // It was the open thread (an agent opens on its newest): the conversation is a new chat now.
    await waitFor(() => expect(backend.callsOf('talkie.newChat')).toEqual([{ agentId: builtInDemoAgentId }]));
    expect(await transcript().findByText('No messages yet. Write one below.')).toBeTruthy();
  });

  it('Escape in the delete question closes it without leaving the chat', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = threads;
    const { user } = await openDemo(backend);
    await user.click(await threadList().findByRole('button', { name: 'Delete Offer for Alfa' }));
    await user.keyboard('{Escape}');
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    expect(threadList().queryByRole('group')).toBeNull();
    expect(backend.callsOf('talkie.deleteThread')).toEqual([]);
  });

  it('refreshes the list after a run ends', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    expect(await threadList().findByText('No chats yet.')).toBeTruthy();
    const runKey = await send(user, backend, 'Hello');
    backend.state.talkie.threads = [{ id: 't-1', title: 'Hello', channel: 'chat' }];
    await answer(backend, runKey, 'Hi!');
    expect(await threadList().findByRole('button', { name: /^Hello/ })).toBeTruthy();
    expect(backend.callsOf('talkie.threads')).toHaveLength(2);
  });
});

describe('chat: server steps', () => {
  it('lists manifest notes in a collapsed section behind Details', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.views[builtInDemoAgentId] = demoView({
      problems: [{ code: 'brand_logo_too_large', path: '/brand/logo', message: 'The logo is larger than 256 kB.' }],
    });
    const { user } = await openDemo(backend);
    expect(screen.queryByText('Notes from this server’s manifest (1)')).toBeNull();
    const summary = (await openDetails(user)).getByText('Notes from this server’s manifest (1)');
    const details = summary.closest('details');
    expect(details?.open).toBe(false);
    expect(within(details as HTMLElement).getByText('brand_logo_too_large')).toBeTruthy();
  });

  it('shows cross-origin endpoints in full and accepts them before the chat', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({
      agentId: 'a1',
      name: 'Example CRM',
      issuer: 'https://crm.example.com',
      endpointsAccepted: false,
      crossOriginEndpoints: [{ name: 'voiceSessions', url: 'https://voice.other.example/api/sessions' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    expect(await screen.findByText('https://voice.other.example/api/sessions')).toBeTruthy();
    expect(screen.queryByRole('textbox', { name: 'Message' })).toBeNull();
    expect(backend.callsOf('talkie.threads')).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Accept and continue' }));
    await waitFor(() => expect(backend.callsOf('talkie.acceptEndpoints')).toEqual([{ agentId: 'a1' }]));
    expect(await screen.findByRole('textbox', { name: 'Message' })).toBe(document.activeElement);
  });

  it('signs in with a pasted token, noting memory-only storage', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({
      agentId: 'a1',
      name: 'Example CRM',
      issuer: 'https://crm.example.com',
      signedIn: false,
      signIn: { oauth: true, pastedToken: true, tokenHint: 'Settings → Devices → New token' },
      tokenStorage: { kind: 'memory', reason: 'no keychain service is running.' },
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Sign in to Example CRM' })).toBeTruthy();
    // The main line in the app's words; main's cause behind Details.
    expect(screen.getByText('Sign-ins last until AgentDesk closes: no keychain is reachable.', { exact: false })).toBeTruthy();
    expect(screen.getByText('no keychain service is running.').closest('[hidden]')).not.toBeNull();
    expect(screen.getByText('Where to get one: Settings → Devices → New token')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign in with your browser' })).toBeTruthy();
    const field = screen.getByLabelText<HTMLInputElement>('Access token');
    expect(field.type).toBe('password');
    await user.type(field, 'dev-token-123');
    await user.click(screen.getByRole('button', { name: 'Use token' }));
    await waitFor(() => expect(backend.callsOf('talkie.useToken')).toEqual([{ agentId: 'a1', token: 'dev-token-123' }]));
    expect(await screen.findByRole('textbox', { name: 'Message' })).toBeTruthy();

    await user.click((await openDetails(user)).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Sign in to Example CRM' })).toBe(document.activeElement);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(backend.callsOf('talkie.signOut')).toEqual([{ agentId: 'a1' }]);
  });

  it('waits visibly while the browser sign-in runs', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({ agentId: 'a1', name: 'Example CRM', signedIn: false, signIn: { oauth: true, pastedToken: false } });
    const release = backend.holdNext('talkie.signIn');
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    await user.click(await screen.findByRole('button', { name: 'Sign in with your browser' }));
    expect(await screen.findByText('Waiting for you to sign in in your browser…')).toBeTruthy();
    expect(screen.queryByLabelText('Access token')).toBeNull();
    release();
    expect(await screen.findByRole('textbox', { name: 'Message' })).toBeTruthy();
  });

  it('while the browser sign-in waits: the link to copy or open again with the time limit, a browser that did not open, Cancel, and the time-out message', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({ agentId: 'a1', name: 'Example CRM', signedIn: false, signIn: { oauth: true, pastedToken: false } });
    let release = backend.holdNext('talkie.signIn');
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    await user.click(await screen.findByRole('button', { name: 'Sign in with your browser' }));
    const url = 'https://auth.example.com/authorize?response_type=code&state=s1';
    act(() => backend.emit('talkie.signInLink', { agentId: 'a1', url, timeoutMs: 300_000, openError: 'No web browser could be started.' }));
    expect(screen.getByText('The browser did not open the sign-in link.', { exact: false })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('textbox', { name: 'Sign-in link' }).value).toBe(url);
    expect(screen.getByText(/AgentDesk waits up to 5 minutes\./)).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Copy link' }));
    // user-event's clipboard stands in for the system's.
    expect(await navigator.clipboard.readText()).toBe(url);
    expect(await screen.findByText('Link copied.')).toBeTruthy();
    backend.failNext('talkie.openSignInLink', { code: 'no_browser', message: 'No web browser could be started to open the link.', retryable: true });
    await user.click(screen.getByRole('button', { name: 'Open again' }));
    expect(await screen.findByText(/The link could not be opened\. No web browser could be started/)).toBeTruthy();
    expect(backend.callsOf('talkie.openSignInLink')).toEqual([{ agentId: 'a1' }]);

    await user.click(screen.getByRole('button', { name: 'Cancel sign-in' }));
    expect(backend.callsOf('talkie.cancelSignIn')).toEqual([{ agentId: 'a1' }]);
    backend.failNext('talkie.signIn', { code: 'not_allowed', message: 'Sign-in was cancelled.', retryable: true });
    await act(async () => release());
    expect(await screen.findByText('Sign-in cancelled.')).toBeTruthy();
    expect(screen.queryByRole('textbox', { name: 'Sign-in link' })).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();

    // The time limit ends the wait with main's clear message.
    release = backend.holdNext('talkie.signIn');
    await user.click(screen.getByRole('button', { name: 'Sign in with your browser' }));
    backend.failNext('talkie.signIn', {
      code: 'network_error',
      message: 'Sign-in was not finished within 5 minutes, so AgentDesk stopped waiting. Start it again.',
      retryable: true,
    });
    await act(async () => release());
    expect(await screen.findByText(/Sign-in was not finished within 5 minutes/)).toBeTruthy();
  });

  it('asks to sign in again when a call answers sign_in_required', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({ agentId: 'a1', name: 'Example CRM', signIn: { oauth: true, pastedToken: false } });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    await screen.findByRole('textbox', { name: 'Message' });
    backend.failNext('talkie.send', { code: 'sign_in_required', message: 'Sign in again to continue.', retryable: false });
    await user.type(messageField(), 'Hello{Enter}');
    expect(await screen.findByRole('heading', { level: 2, name: 'Sign in to Example CRM' })).toBeTruthy();
    expect(screen.getByText('Sign in again to continue.')).toBeTruthy();
  });
});
