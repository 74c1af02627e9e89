import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeBackend, demoView } from './fake-api';
import { renderApp } from './render-app';

describe('browser sign-in keeps the focus on a control (#15: focus never falls to <body>)', () => {
  it('the disabled sign-in button hands focus to Cancel sign-in; after Cancel it comes back to the sign-in button', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({ agentId: 'a1', name: 'Example CRM', signedIn: false, signIn: { oauth: true, pastedToken: false } });
    const release = backend.holdNext('talkie.signIn');
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    const signIn = await screen.findByRole('button', { name: 'Sign in with your browser' });
    signIn.focus();
    await user.keyboard('{Enter}');
    await screen.findByText('Waiting for you to sign in in your browser…');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel sign-in' }));

    await user.keyboard('{Enter}');
    expect(backend.callsOf('talkie.cancelSignIn')).toEqual([{ agentId: 'a1' }]);
    backend.failNext('talkie.signIn', { code: 'not_allowed', message: 'Sign-in was cancelled.', retryable: true });
    await act(async () => release());
    expect(await screen.findByText('Sign-in cancelled.')).toBeTruthy();
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Sign in with your browser' })));
  });

  it('says in the user’s words that sign-ins last until AgentDesk closes; main’s cause is behind Details', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.talkie.views.a1 = demoView({
      agentId: 'a1',
      name: 'Example CRM',
      signedIn: false,
      signIn: { oauth: true, pastedToken: false },
      tokenStorage: { kind: 'memory', reason: 'Secret Service not running' },
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    const line = (await screen.findByText('Sign-ins last until AgentDesk closes: no keychain is reachable.', { exact: false })).closest('p')!;
    expect(line.textContent).toBe('Sign-ins last until AgentDesk closes: no keychain is reachable. Details Secret Service not running');
    expect(screen.getByText('Secret Service not running').closest('[hidden]')).not.toBeNull();
  });
});
