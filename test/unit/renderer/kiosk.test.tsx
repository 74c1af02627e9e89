import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { DevicePolicyStatus } from '../../../src/shared/device-policy/ipc-schemas';
import { ok } from '../../../src/shared/base/errors';
import { App } from '../../../src/renderer/App';
import { defaultSettings } from '../../../src/shared/settings/settings';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend } from './fake-api';

afterEach(() => {
  cleanup();
  delete document.documentElement.dataset.kiosk;
});

const workshop = {
  id: 'policy-0123456789abcdef0123456789abcdef',
  url: 'https://workshop.example.com/',
  display: 'workshop.example.com',
  addedAt: '2026-12-01T00:00:00.000Z',
  label: 'Workshop',
};
const kioskPolicy: DevicePolicyStatus = {
  state: 'active',
  file: '/etc/agentdesk/policy.json',
  kiosk: true,
  agentsLocked: true,
  startAgentId: workshop.id,
  forced: ['language', 'appearance.textSize'],
  camera: true,
  voice: true,
  adminPin: true,
  idleResetSeconds: 60,
};

function kioskApp() {
  const backend = createFakeBackend({ agents: [workshop], agentCallAgents: [workshop.id], policy: kioskPolicy });
  agentCallMain(backend);
  const user = userEvent.setup();
  render(<App api={backend.api} policy={kioskPolicy} />);
  return { backend, user };
}

describe('the kiosk in the renderer (issue #18)', () => {
  it('starts on the start screen after clearing the last session, and a touch opens the start agent', async () => {
    const { backend, user } = kioskApp();
    await screen.findByRole('heading', { level: 1, name: 'Touch the screen to start' });
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    expect(backend.callsOf('kiosk.reset')).toHaveLength(1);
    expect(document.documentElement.dataset.kiosk).toBe('true');
    await user.click(screen.getByRole('heading', { level: 1 }));
    // The agent screens' code loads on first use, then main opens the agent's session.
    await waitFor(() => expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: workshop.id }]));
    // A visitor's screen: no sidebar (no agent list to add to, no demo, no rename or remove).
    expect(screen.queryByRole('navigation')).toBeNull();
    expect(screen.queryByRole('button', { name: /Add an agent|Demo/ })).toBeNull();
  });

  it("asks for the admin PIN before Settings, shows main's wait after wrong tries, and Settings lists what the policy sets", async () => {
    const { backend, user } = kioskApp();
    const answers = [
      { unlocked: false as const, reason: 'wrong' as const, retryAfterSeconds: 0, freeTriesLeft: 2 },
      { unlocked: false as const, reason: 'wrong' as const, retryAfterSeconds: 30, freeTriesLeft: 0 },
      { unlocked: true as const, until: new Date(Date.now() + 300_000).toISOString() },
    ];
    backend.handle('policy.unlockAdmin', () => ok(answers.shift()!));
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    // The administrator's way in is on the start screen.
    await user.click(screen.getByRole('button', { name: 'Administrator' }));
    const dialog = await screen.findByRole('dialog', { name: 'Administrator PIN' });
    expect(screen.queryByRole('heading', { level: 1, name: 'Settings' })).toBeNull();
    await user.type(within(dialog).getByLabelText('PIN'), '1111{Enter}');
    await within(dialog).findByText(/Wrong PIN\. Tries before a wait: 2\./);
    await user.type(within(dialog).getByLabelText('PIN'), '2222{Enter}');
    await within(dialog).findByText(/Wrong PIN\. Try again in 30 s\./);
    expect(within(dialog).getByLabelText<HTMLInputElement>('PIN').disabled).toBe(true);
    expect(backend.callsOf('policy.unlockAdmin')).toEqual([{ pin: '1111' }, { pin: '2222' }]);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog', { name: 'Administrator PIN' })).toBeNull();
    // The right PIN (main decides) opens Settings, which names the keys the policy sets.
    await user.click(screen.getByRole('button', { name: 'Administrator' }));
    const again = await screen.findByRole('dialog', { name: 'Administrator PIN' });
    await user.type(within(again).getByLabelText('PIN'), '2468{Enter}');
    await screen.findByRole('heading', { level: 1, name: 'Settings' });
    const forced = screen.getByRole('region', { name: 'Set by the administrator' });
    expect(
      within(forced)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['Language', 'Text size']);
  });

  it('where the policy arms NFC scanning, a tag tapped on the start screen opens the start agent and becomes its first observation', async () => {
    const policy: DevicePolicyStatus = { ...kioskPolicy, forced: ['nfc.kioskScan'] };
    const backend = createFakeBackend({
      agents: [workshop],
      agentCallAgents: [workshop.id],
      policy,
      settings: { ...structuredClone(defaultSettings), nfc: { debounceMs: 2000, kioskScan: true, readerFeedback: false } },
    });
    agentCallMain(backend);
    backend.handle('agentcall.open', () =>
      ok({
        sessionKey: 'start-session',
        agent: backend.state.agentCall,
        updates: [
          { type: 'session.starting', sessionId: 'agentdesk-fake', usableModalities: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true },
        ],
      }),
    );
    render(<App api={backend.api} policy={policy} />);
    await screen.findByRole('heading', { level: 1, name: 'Tap a tag or touch the screen to start' });
    const start = await screen.findByRole<HTMLButtonElement>('button', { name: 'Start' });
    await waitFor(() => expect(start.disabled).toBe(false));
    // Scanning is armed while the start screen shows (in a focused window).
    act(() => window.dispatchEvent(new Event('focus')));
    await waitFor(() => expect(backend.callsOf('nfc.kiosk')).toContainEqual({ active: true }));
    const objectRef = 'urn:agentcall:object:workshop-router';
    act(() =>
      backend.emit('nfc.scanResult', {
        scanId: 'k-1',
        outcome: 'observation',
        reader: 'Virtual PCD 00 00',
        object: { objectRef, carrier: 'ndefTag', assurance: 'unverifiedTag', payloadSha256: 'a'.repeat(64) },
      }),
    );
    await waitFor(() => expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: workshop.id }]));
    // Sent once the session is established, to that session.
    expect(backend.callsOf('kiosk.startTag')).toEqual([]);
    act(() => backend.emit('agentcall.update', { sessionKey: 'start-session', updates: [{ type: 'session.established' }] }));
    await waitFor(() => expect(backend.callsOf('kiosk.startTag')).toEqual([{ sessionKey: 'start-session', scanId: 'k-1', objectRef }]));
  });
});
