import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { Root } from '../../../src/renderer/Root';
import { createFakeBackend } from './fake-api';

describe('the device policy error screen', () => {
  it('shows only the failure, naming the file and the problem, when main says the policy failed (kiosk mode)', async () => {
    const message = 'AgentDesk\'s device policy /etc/agentdesk/policy.json cannot be used: one problem: unknown key "kiosks" at the top level. …';
    const backend = createFakeBackend({ policy: { state: 'failed', file: '/etc/agentdesk/policy.json', message } });
    render(<Root bridge={{ kind: 'web', api: backend.api, connected: Promise.resolve(true) }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'AgentDesk cannot start on this device' })).toBeTruthy();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Device policy file: /etc/agentdesk/policy.json');
    expect(alert.textContent).toContain('unknown key "kiosks"');
    // Nothing of the app: no agents, no settings, and the page asked main for nothing else.
    expect(screen.queryByRole('button', { name: 'Settings' })).toBeNull();
    expect(backend.calls.map((call) => call.method)).toEqual(['policy.status']);
  });

  it('opens the app under an active policy or without one', async () => {
    const backend = createFakeBackend({
      policy: {
        state: 'active',
        file: '/etc/agentdesk/policy.json',
        kiosk: false,
        agentsLocked: false,
        forced: ['language'],
        camera: true,
        voice: true,
        adminPin: false,
      },
    });
    render(<Root bridge={{ kind: 'web', api: backend.api }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    expect(screen.queryByRole('alert', { name: /cannot start/ })).toBeNull();
  });
});
