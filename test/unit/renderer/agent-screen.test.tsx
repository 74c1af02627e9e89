import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

/** Opening an agent: main says which protocol it speaks, and the matching screen opens. */
describe('opening an agent', () => {
  it('opens the built-in demo’s AgentCall side from the demo tile without asking main what it speaks', async () => {
    const { backend, user } = await renderApp();
    await user.click(screen.getByRole('button', { name: 'Scan and teach objects' }));
    await screen.findByText('Accepts NFC scans and photos');
    expect(backend.callsOf('demo.openAgentCall')).toHaveLength(1);
    expect(backend.callsOf('agents.identify')).toEqual([]);
    expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: builtInAgentCallDemoId }]);
  });

  it('asks main what an added agent speaks and opens the AgentCall screen for an agent card', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agent-a', url: 'https://lab.example.com/', display: 'lab.example.com', addedAt: '2026-11-30T00:00:00Z' }],
    });
    backend.state.agentCallAgents = ['agent-a'];
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open lab.example.com' }));
    await screen.findByText('Accepts NFC scans and photos');
    expect(backend.callsOf('agents.identify')).toEqual([{ agentId: 'agent-a' }]);
    expect(backend.callsOf('talkie.connect')).toEqual([]);
  });

  it('opens the Talkie chat for a Talkie server', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agent-t', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2026-11-30T00:00:00Z' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open crm.example.com' }));
    await waitFor(() => expect(backend.callsOf('talkie.connect')).toEqual([{ agentId: 'agent-t' }]));
    expect(backend.callsOf('agentcall.open')).toEqual([]);
  });

  it('explains why an agent cannot be opened, and tries again on Retry', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agent-x', url: 'https://a2a.example.com/', display: 'a2a.example.com', addedAt: '2026-11-30T00:00:00Z' }],
    });
    backend.failNext('agents.identify', { code: 'incompatible', message: 'This is an A2A agent without the AgentCall extension.' });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open a2a.example.com' }));
    await screen.findByText(/This is an A2A agent without the AgentCall extension\./);
    expect(screen.getByText(/AgentDesk cannot open this agent\./)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('talkie.connect')).toEqual([{ agentId: 'agent-x' }]));
    expect(backend.callsOf('agents.identify')).toHaveLength(2);
  });
});
