import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { parseUiLinks } from '../../../src/shared/agentmesh/ui-links';
import { builtInAgentCallDemoId, type A2AAgentView, type AgentEntry } from '../../../src/shared/ipc/contract';
import workedExampleJson from '../../fixtures/agentmesh/worked-example.json';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

/** Opening an agent: main says which protocol it speaks, and the matching screen opens. */
describe('opening an agent', () => {
  it('opens the built-in demo’s AgentCall side from the demo tile without asking main what it speaks', async () => {
    const { backend, user } = await renderApp();
    agentCallMain(backend);
    await user.click(screen.getByRole('button', { name: 'Scan and teach objects' }));
    await screen.findByRole('button', { name: 'Scan object' });
    expect(backend.callsOf('demo.openAgentCall')).toHaveLength(1);
    expect(backend.callsOf('agents.identify')).toEqual([]);
    expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: builtInAgentCallDemoId }]);
  });

  it('asks main what an added agent speaks and opens the AgentCall screen for an agent card', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'agent-a', url: 'https://lab.example.com/', display: 'lab.example.com', addedAt: '2026-11-30T00:00:00Z' }],
    });
    backend.state.agentCallAgents = ['agent-a'];
    agentCallMain(backend);
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open lab.example.com' }));
    await screen.findByRole('button', { name: 'Scan object' });
    expect(backend.callsOf('agentcall.open')).toEqual([{ agentId: 'agent-a' }]);
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

/** Issue #13 item 7: an A2A agent with web pages but neither Talkie nor AgentCall gets a page. */
describe('a plain A2A agent', () => {
  const cardUrl = 'http://127.0.0.1:8103/.well-known/agent-card.json';
  const larkfield: A2AAgentView = {
    name: 'Larkfield Payroll',
    description: 'Runs payrolls for client accounts.',
    version: '1.0.0',
    cardUrl,
    skills: [
      { name: 'Run payroll', description: 'Runs a payroll for a client account.', tags: ['payroll', 'monthly'] },
      { name: 'Explain a payslip', description: '', tags: [] },
    ],
  };

  function a2aBackend(entry: Partial<AgentEntry> = {}) {
    const backend = createFakeBackend({
      agents: [{ id: 'agent-p', url: 'http://127.0.0.1:8103/', display: '127.0.0.1:8103', addedAt: '2026-11-30T00:00:00Z', ...entry }],
    });
    backend.state.a2aAgents = { 'agent-p': larkfield };
    const { links, problems } = parseUiLinks(workedExampleJson, { cardUrl });
    backend.state.webPages = { 'agent-p': { cardUrl, links, problems } };
    return backend;
  }

  it('opens a page with its name, description, skills (with tags) and web pages, and no session', async () => {
    const backend = a2aBackend();
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open 127.0.0.1:8103' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'Larkfield Payroll' });
    await waitFor(() => expect(document.activeElement).toBe(heading));
    expect(screen.getByText('Runs payrolls for client accounts.')).toBeTruthy();
    expect(screen.getByText('Version 1.0.0')).toBeTruthy();
    expect(screen.getByText(/it offers no way of talking that AgentDesk knows/)).toBeTruthy();

    const skills = screen.getByRole('region', { name: 'Skills' });
    expect(within(skills).getByRole('heading', { level: 3, name: 'Run payroll' })).toBeTruthy();
    expect(within(skills).getByText('Runs a payroll for a client account.')).toBeTruthy();
    const tags = within(skills).getByRole('list', { name: 'Tags of Run payroll' });
    expect(
      within(tags)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['payroll', 'monthly']);
    expect(within(skills).getByRole('heading', { level: 3, name: 'Explain a payslip' })).toBeTruthy();

    // The web pages panel is open from the start: the pages are what there is to see.
    const pages = await screen.findByRole('region', { name: 'Web pages from the agent’s card' });
    expect(
      within(pages)
        .getByRole('button', { name: /^Web pages/ })
        .getAttribute('aria-expanded'),
    ).toBe('true');
    expect(within(pages).getByRole('button', { name: 'Payroll reports' })).toBeTruthy();
    expect(within(pages).getByRole('button', { name: 'Service status' })).toBeTruthy();

    expect(backend.callsOf('agents.webPages')).toEqual([{ agentId: 'agent-p' }]);
    expect(backend.callsOf('talkie.connect')).toEqual([]);
    expect(backend.callsOf('agentcall.open')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Back' }));
    await screen.findByRole('heading', { level: 1, name: 'Your agents' });
  });

  it('is listed by its card name (with its address) once main has learned it', async () => {
    const backend = a2aBackend({ name: 'Larkfield Payroll' });
    const { user } = await renderApp({ backend });
    const list = screen.getByRole('list', { name: 'Added agents' });
    expect(within(list).getByText('Larkfield Payroll')).toBeTruthy();
    expect(within(list).getByText('127.0.0.1:8103')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Open Larkfield Payroll' }));
    await screen.findByRole('heading', { level: 1, name: 'Larkfield Payroll' });
  });

  it('shows who offers it, its documentation and its icon as untrusted links: the URL first, opened only through external.open, the icon never loaded', async () => {
    const backend = a2aBackend();
    backend.state.a2aAgents['agent-p'] = {
      ...larkfield,
      provider: { organization: 'Larkfield Payroll Ltd', url: 'https://larkfield.example/' },
      documentationUrl: 'https://docs.larkfield.example/agent',
      iconUrl: 'https://agent.larkfield.example/icon.png',
    };
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open 127.0.0.1:8103' }));
    const about = await screen.findByRole('region', { name: 'From its card' });
    expect(within(about).getByText(/does not check these links and loads nothing from them/)).toBeTruthy();
    expect(
      within(about)
        .getAllByText(/^other site: /)
        .map((label) => label.textContent),
    ).toEqual(['other site: larkfield.example', 'other site: docs.larkfield.example', 'other site: agent.larkfield.example']);
    // The icon is a link, never a picture: nothing on the page loads it.
    expect(within(about).getByText('The picture is not shown here: AgentDesk loads no pictures from an agent’s card.')).toBeTruthy();
    expect(document.querySelectorAll('img')).toHaveLength(0);
    expect(document.body.innerHTML).not.toContain('src="https://agent.larkfield.example/icon.png"');

    // A link shows its full URL first; only "Open in browser" opens it.
    await user.click(within(about).getByRole('button', { name: 'Offered by Larkfield Payroll Ltd' }));
    const confirm = within(about).getByRole('group', { name: 'Open Offered by Larkfield Payroll Ltd?' });
    expect(within(confirm).getByText('https://larkfield.example/')).toBeTruthy();
    expect(backend.callsOf('external.open')).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Open in browser' }));
    await waitFor(() => expect(backend.callsOf('external.open')).toEqual([{ url: 'https://larkfield.example/' }]));
    await user.click(within(about).getByRole('button', { name: 'Its icon picture' }));
    expect(within(about).getByText('https://agent.larkfield.example/icon.png')).toBeTruthy();
    expect(within(about).getByRole('button', { name: 'Documentation' })).toBeTruthy();
  });

  it('says nothing about its provider when the card names none, and shows a provider without a link as text', async () => {
    const backend = a2aBackend();
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Open 127.0.0.1:8103' }));
    await screen.findByRole('heading', { level: 1, name: 'Larkfield Payroll' });
    expect(screen.queryByRole('region', { name: 'From its card' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    backend.state.a2aAgents['agent-p'] = { ...larkfield, provider: { organization: 'Larkfield Payroll Ltd' } };
    await user.click(await screen.findByRole('button', { name: /^Open (127\.0\.0\.1:8103|Larkfield Payroll)$/ }));
    const about = await screen.findByRole('region', { name: 'From its card' });
    expect(within(about).getByText('Offered by Larkfield Payroll Ltd')).toBeTruthy();
    expect(within(about).queryByRole('button')).toBeNull();
  });
});
