import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

function addressField() {
  return screen.getByRole<HTMLInputElement>('textbox', { name: 'Agent address' });
}

function agentNames(): string[] {
  const list = screen.queryByRole('list', { name: 'Added agents' });
  if (!list) return [];
  return within(list)
    .getAllByRole('listitem')
    .map((item) => item.querySelector('.agent-list__name')?.textContent ?? '');
}

describe('home screen', () => {
  it('shows the empty state when no agents were added', async () => {
    await renderApp();
    expect(screen.getByText('No agents yet. Add one by its address, or try the built-in demo.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Added agents' })).toBeNull();
    expect(addressField().placeholder).toBe('crm.example.com');
  });

  it('lists the agents main already has', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    await renderApp({ backend });
    expect(agentNames()).toEqual(['crm.example.com']);
    expect(screen.queryByText(/No agents yet/)).toBeNull();
  });

  it('checks the address first, says what it found, and adds it with Add: listed, field cleared, addition announced', async () => {
    const { user, backend } = await renderApp();
    await user.type(addressField(), 'crm.example.com');
    await user.click(screen.getByRole('button', { name: 'Check' }));

    await screen.findByText('Found: “Server at crm.example.com”, an assistant to chat with');
    expect(backend.callsOf('agents.check')).toEqual([{ address: 'crm.example.com' }]);
    expect(backend.callsOf('agents.add')).toEqual([]);
    expect(agentNames()).toEqual([]);
    // Add has the focus: Enter adds what was found.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Add' }));
    await user.keyboard('{Enter}');

    await waitFor(() => expect(agentNames()).toEqual(['crm.example.com']));
    expect(backend.callsOf('agents.add')).toEqual([{ address: 'crm.example.com' }]);
    expect(addressField().value).toBe('');
    expect(addressField().getAttribute('aria-invalid')).toBeNull();
    const statuses = screen.getAllByRole('status').map((element) => element.textContent);
    expect(statuses).toContain('Added crm.example.com');
    expect(screen.queryByText(/^Found:/)).toBeNull();
    expect(screen.queryByText(/No agents yet/)).toBeNull();
    // Focus returns to the field for the next address.
    expect(document.activeElement).toBe(addressField());
  });

  it('shows added and removed agents from the answers alone when no event arrives', async () => {
    const { user, backend } = await renderApp();
    backend.muteEvents(true);
    await user.type(addressField(), 'crm.example.com{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    await waitFor(() => expect(agentNames()).toEqual(['crm.example.com']));
    await user.click(screen.getByRole('button', { name: 'Remove crm.example.com' }));
    await waitFor(() => expect(agentNames()).toEqual([]));
  });

  it('checks with Enter from the field', async () => {
    const { user } = await renderApp();
    await user.type(addressField(), 'https://ops.example.org/agent{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    await waitFor(() => expect(agentNames()).toEqual(['ops.example.org/agent']));
  });

  it('shows “Checking …” with a spinner and Cancel while main checks, then Adding… while it adds', async () => {
    const backend = createFakeBackend();
    const releaseCheck = backend.holdNext('agents.check');
    const { user } = await renderApp({ backend });
    await user.type(addressField(), ' crm.example.com ');
    await user.click(screen.getByRole('button', { name: 'Check' }));

    const checking = await screen.findByText('Checking crm.example.com…');
    expect(checking.closest('[role="status"]')).not.toBeNull();
    expect(checking.querySelector('.spinner')?.getAttribute('aria-hidden')).toBe('true');
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Check' }).disabled).toBe(true);
    expect(addressField().readOnly).toBe(true);
    // The focus moves to Cancel (the Check button it was on is disabled).
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));

    await act(async () => releaseCheck());
    await screen.findByText('Found: “Server at crm.example.com”, an assistant to chat with');
    expect(screen.queryByText('Checking crm.example.com…')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Cancel' })).toBeNull();

    const releaseAdd = backend.holdNext('agents.add');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const busy = await screen.findByRole<HTMLButtonElement>('button', { name: 'Adding…' });
    expect(busy.disabled).toBe(true);
    await act(async () => releaseAdd());
    await waitFor(() => expect(agentNames()).toEqual(['crm.example.com']));
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Check' }).disabled).toBe(false);
  });

  it('Cancel stops waiting for a check: its late answer is ignored and the field can be edited again', async () => {
    const backend = createFakeBackend();
    const release = backend.holdNext('agents.check');
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'crm.example.com{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    expect(screen.queryByText('Checking crm.example.com…')).toBeNull();
    expect(document.activeElement).toBe(addressField());
    expect(addressField().readOnly).toBe(false);
    await act(async () => release());
    expect(screen.queryByText(/^Found:/)).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add' })).toBeNull();
  });

  it('Escape cancels a check too', async () => {
    const backend = createFakeBackend();
    const release = backend.holdNext('agents.check');
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'crm.example.com{Enter}');
    await screen.findByText('Checking crm.example.com…');
    await user.keyboard('{Escape}');
    expect(screen.queryByText('Checking crm.example.com…')).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    await act(async () => release());
    expect(screen.queryByText(/^Found:/)).toBeNull();
  });

  it('says what else it found: an AgentCall agent, a plain A2A agent with web pages', async () => {
    const backend = createFakeBackend({
      checks: {
        'workshop.example.com': { found: true, kind: 'agentcall', display: '', name: 'Workshop agent', webPages: 2 },
        'payroll.example.com': { found: true, kind: 'a2a', display: '', name: 'Larkfield Payroll', webPages: 3 },
      },
    });
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'workshop.example.com{Enter}');
    await screen.findByText('Found: “Workshop agent”, an assistant for objects and photos');
    expect(screen.getByText('Its card also lists web pages (2).')).toBeTruthy();
    await user.clear(addressField());
    // Editing the address drops what was found for the old one.
    expect(screen.queryByText(/^Found:/)).toBeNull();
    await user.type(addressField(), 'payroll.example.com{Enter}');
    await screen.findByText('Found: “Larkfield Payroll”');
    expect(screen.getByText('payroll.example.com')).toBeTruthy();
    expect(screen.getByText('It has no chat: AgentDesk shows what its card says about it and its web pages (3).')).toBeTruthy();
  });

  it('an address it could not reach: why in words, the code behind Details, and Add anyway', async () => {
    const backend = createFakeBackend({
      checks: {
        'offline.example.com': {
          found: false,
          reason: 'unreachable',
          display: '',
          code: 'net_dns_failed',
          message: 'Could not find offline.example.com: ENOTFOUND.',
        },
      },
    });
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'offline.example.com{Enter}');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain(
      'AgentDesk could not reach offline.example.com. The server’s name could not be found. Check the address and your network.',
    );
    // The raw detail is not on the main line.
    expect(within(alert).getByText('net_dns_failed: Could not find offline.example.com: ENOTFOUND.').closest('[hidden]')).not.toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Details' }));
    expect(within(alert).getByText('net_dns_failed: Could not find offline.example.com: ENOTFOUND.').closest('[hidden]')).toBeNull();
    expect(screen.getByText(/you can add it anyway/)).toBeTruthy();
    expect(backend.callsOf('agents.add')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Add anyway' }));
    await waitFor(() => expect(agentNames()).toEqual(['offline.example.com']));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('an address that answered without an agent, or with one it cannot talk to, is not offered for adding', async () => {
    const backend = createFakeBackend({
      checks: {
        'www.example.com': {
          found: false,
          reason: 'not_found',
          display: '',
          code: 'manifest_http_error',
          message: 'No Talkie manifest and no AgentCall agent card was found at www.example.com. Check the address.',
        },
        'old.example.com': {
          found: false,
          reason: 'incompatible',
          display: '',
          code: 'session_resume_unsupported',
          message: 'AgentDesk cannot talk to this agent: session resume is not supported.',
        },
      },
    });
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'www.example.com{Enter}');
    expect((await screen.findByRole('alert')).textContent).toContain('www.example.com answered, but no agent AgentDesk knows is there');
    expect(screen.queryByRole('button', { name: /^Add( anyway)?$/ })).toBeNull();
    expect(document.activeElement).toBe(addressField());

    await user.clear(addressField());
    await user.type(addressField(), 'old.example.com{Enter}');
    expect((await screen.findByRole('alert')).textContent).toContain('old.example.com is an agent AgentDesk cannot talk to. Details say why.');
    expect(screen.queryByRole('button', { name: /^Add( anyway)?$/ })).toBeNull();
    expect(backend.callsOf('agents.add')).toEqual([]);
  });

  it('says it in Czech', async () => {
    const backend = createFakeBackend({
      checks: {
        'offline.example.com': {
          found: false,
          reason: 'unreachable',
          display: '',
          code: 'check_timeout',
          message: 'offline.example.com did not answer within 15 s.',
        },
      },
    });
    backend.state.settings = { ...backend.state.settings, language: 'cs' };
    const user = (await import('@testing-library/user-event')).default.setup();
    const { render } = await import('@testing-library/react');
    const { App } = await import('../../../src/renderer/App');
    render(<App api={backend.api} />);
    const field = await screen.findByRole<HTMLInputElement>('textbox', { name: 'Adresa agenta' });
    await user.type(field, 'crm.example.com');
    await user.click(screen.getByRole('button', { name: 'Ověřit' }));
    await screen.findByText('Nalezeno: „Server at crm.example.com“, asistent na chatování');
    await user.clear(field);
    await user.type(field, 'offline.example.com{Enter}');
    expect((await screen.findByRole('alert')).textContent).toContain('AgentDesk se k adrese offline.example.com nedostal. Server neodpověděl včas.');
    expect(screen.getByRole('button', { name: 'Přesto přidat' })).toBeTruthy();
  });

  it('shows a refused address under the field, marks it invalid and keeps what was typed', async () => {
    const backend = createFakeBackend();
    const message = 'Unencrypted http:// is only allowed for development. Use https://, or turn on the development setting.';
    backend.failNext('agents.check', { code: 'insecure_scheme', message });
    const { user } = await renderApp({ backend });

    await user.type(addressField(), 'http://crm.example.com');
    await user.click(screen.getByRole('button', { name: 'Check' }));

    const error = await screen.findByText(message);
    const field = addressField();
    expect(field.value).toBe('http://crm.example.com');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (field.getAttribute('aria-describedby') ?? '').split(' ');
    const errorElement = error.closest('[id]');
    expect(errorElement).not.toBeNull();
    expect(describedBy).toContain(errorElement?.id);
    expect(agentNames()).toEqual([]);
    expect(screen.getByText(/No agents yet/)).toBeTruthy();
    expect(backend.callsOf('agents.add')).toEqual([]);
  });

  it('shows a failed add under the field and keeps what was found', async () => {
    const backend = createFakeBackend();
    backend.failNext('agents.add', { code: 'save_failed', message: 'agents.json could not be saved: the disk is full.' });
    const { user } = await renderApp({ backend });
    await user.type(addressField(), 'crm.example.com{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    expect(await screen.findByText('agents.json could not be saved: the disk is full.')).toBeTruthy();
    expect(screen.getByText('Found: “Server at crm.example.com”, an assistant to chat with')).toBeTruthy();
    expect(addressField().value).toBe('crm.example.com');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(agentNames()).toEqual(['crm.example.com']));
  });

  it('shows the real validation message of main for an address it rejects', async () => {
    const { user } = await renderApp();
    await user.type(addressField(), 'ftp://files.example.com{Enter}');
    expect(await screen.findByText('Only https:// addresses are supported, not ftp://.')).toBeTruthy();
    expect(addressField().value).toBe('ftp://files.example.com');

    // Fixing the address clears the error.
    await user.clear(addressField());
    expect(addressField().getAttribute('aria-invalid')).toBeNull();
    await user.type(addressField(), 'files.example.com{Enter}');
    await user.click(await screen.findByRole('button', { name: 'Add' }));
    await waitFor(() => expect(agentNames()).toEqual(['files.example.com']));
    expect(screen.queryByText('Only https:// addresses are supported, not ftp://.')).toBeNull();
  });

  it('renames an agent in place: Enter saves, the list and the sidebar show the name with the address, focus returns to Rename', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Rename crm.example.com' }));
    const field = screen.getByRole<HTMLInputElement>('textbox', { name: 'Name for crm.example.com' });
    // The current name, selected: typing replaces it.
    expect(document.activeElement).toBe(field);
    expect(field.value).toBe('crm.example.com');
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, 'crm.example.com'.length]);
    expect(field.maxLength).toBe(100);
    await user.keyboard('  Work   CRM {Enter}');

    await waitFor(() => expect(agentNames()).toEqual(['Work CRM crm.example.com']));
    expect(backend.callsOf('agents.rename')).toEqual([{ id: 'a1', name: 'Work CRM' }]);
    expect(backend.state.agents[0]).toMatchObject({ label: 'Work CRM' });
    expect(screen.getAllByRole('status').map((element) => element.textContent)).toContain('Renamed to Work CRM');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename Work CRM' }));
    expect(screen.getByRole('button', { name: 'Open Work CRM' })).toBeTruthy();
    expect(within(screen.getByRole('navigation', { name: 'AgentDesk' })).getByRole('button', { name: /^Work CRM/ })).toBeTruthy();
  });

  it('Escape (or Cancel) leaves the name as it was; saving it unchanged sends nothing', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z', label: 'Work CRM' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Rename Work CRM' }));
    await user.keyboard('Something else{Escape}');
    expect(screen.queryByRole('textbox', { name: 'Name for crm.example.com' })).toBeNull();
    expect(agentNames()).toEqual(['Work CRM crm.example.com']);
    // Escape went no further: Home is still shown, and the focus is back on Rename.
    expect(screen.getByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Rename Work CRM' }));

    await user.click(screen.getByRole('button', { name: 'Rename Work CRM' }));
    await user.type(screen.getByRole('textbox', { name: 'Name for crm.example.com' }), ' ');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(screen.queryByRole('textbox', { name: 'Name for crm.example.com' })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Rename Work CRM' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('textbox', { name: 'Name for crm.example.com' })).toBeNull();
    expect(backend.callsOf('agents.rename')).toEqual([]);
  });

  it('refuses an empty name, and shows main’s refusal, staying in the field', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.failNext('agents.rename', { code: 'save_failed', message: 'agents.json could not be saved: the disk is full.' });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Rename crm.example.com' }));
    const field = screen.getByRole<HTMLInputElement>('textbox', { name: 'Name for crm.example.com' });
    await user.clear(field);
    await user.keyboard('{Enter}');
    expect(screen.getByRole('alert').textContent).toBe('Type a name for the agent.');
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('agents.rename')).toEqual([]);

    await user.keyboard('Work CRM{Enter}');
    expect((await screen.findByRole('alert')).textContent).toBe('agents.json could not be saved: the disk is full.');
    expect(document.activeElement).toBe(field);
    expect(field.value).toBe('Work CRM');
    expect(backend.state.agents[0]?.label).toBeUndefined();
  });

  it('renames in Czech', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.state.settings = { ...backend.state.settings, language: 'cs' };
    const user = (await import('@testing-library/user-event')).default.setup();
    const { render } = await import('@testing-library/react');
    const { App } = await import('../../../src/renderer/App');
    render(<App api={backend.api} />);
    await user.click(await screen.findByRole('button', { name: 'Přejmenovat crm.example.com' }));
    await user.keyboard('Práce{Enter}');
    await screen.findByText('Přejmenováno na Práce');
    expect(screen.getByRole('button', { name: 'Přejmenovat Práce' })).toBeTruthy();
  });

  it('removes an agent with its own Remove button', async () => {
    const backend = createFakeBackend({
      agents: [
        { id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' },
        { id: 'a2', url: 'https://ops.example.org/', display: 'ops.example.org', addedAt: '2025-01-02T00:00:00.000Z' },
      ],
    });
    const { user } = await renderApp({ backend });
    expect(agentNames()).toEqual(['crm.example.com', 'ops.example.org']);

    await user.click(screen.getByRole('button', { name: 'Remove crm.example.com' }));
    await waitFor(() => expect(agentNames()).toEqual(['ops.example.org']));
    expect(backend.callsOf('agents.remove')).toEqual([{ id: 'a1' }]);
    expect(backend.state.agents.map((agent) => agent.id)).toEqual(['a2']);
    expect(screen.getAllByRole('status').map((element) => element.textContent)).toContain('Removed crm.example.com Undo');
    // Focus moves to the next row's button instead of being lost.
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Remove ops.example.org' }));

    await user.click(screen.getByRole('button', { name: 'Remove ops.example.org' }));
    await waitFor(() => expect(screen.getByText(/No agents yet/)).toBeTruthy());
    expect(document.activeElement).toBe(addressField());
  });

  it('puts a removed agent back in its place with Undo', async () => {
    const backend = createFakeBackend({
      agents: [
        { id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' },
        { id: 'a2', url: 'https://ops.example.org/', display: 'ops.example.org', addedAt: '2025-01-02T00:00:00.000Z' },
      ],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Remove crm.example.com' }));
    await waitFor(() => expect(agentNames()).toEqual(['ops.example.org']));
    await user.click(screen.getByRole('button', { name: 'Undo removing crm.example.com' }));
    await waitFor(() => expect(agentNames()).toEqual(['crm.example.com', 'ops.example.org']));
    expect(backend.state.agents.map((agent) => agent.id)).toEqual(['a1', 'a2']);
    expect(screen.queryByRole('button', { name: 'Undo removing crm.example.com' })).toBeNull();
    // The Undo button went away: focus is back on the restored row, not on <body>.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Remove crm.example.com' })));
  });

  it('names a removed agent by the name the user gave it, in "Removed" and its Undo', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', label: 'Work CRM', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Remove Work CRM' }));
    expect(await screen.findByText(/^Removed Work CRM/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Undo removing Work CRM' })).toBeTruthy();
  });

  it('shows why a remove failed and keeps the agent', async () => {
    const backend = createFakeBackend({
      agents: [{ id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' }],
    });
    backend.failNext('agents.remove', { code: 'disconnected', message: 'The connection to AgentDesk was lost. Restart the app.' });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Remove crm.example.com' }));
    expect(await screen.findByText(/crm\.example\.com could not be removed\./)).toBeTruthy();
    expect(agentNames()).toEqual(['crm.example.com']);
  });

  it('follows agents.changed from main', async () => {
    const { backend } = await renderApp();
    act(() =>
      backend.emit('agents.changed', {
        agents: [{ id: 'x', url: 'https://elsewhere.example/', display: 'elsewhere.example', addedAt: '2025-01-01T00:00:00.000Z' }],
      }),
    );
    expect(agentNames()).toEqual(['elsewhere.example']);
  });

  it('shows the demo tile with an enabled Open demo button', async () => {
    await renderApp();
    expect(screen.getByRole('heading', { level: 2, name: 'Built-in demo' })).toBeTruthy();
    const open = screen.getByRole<HTMLButtonElement>('button', { name: 'Chat with the demo assistant' });
    expect(open.disabled).toBe(false);
    expect(screen.queryByText(/demo agent is not part of this version/)).toBeNull();
    expect(screen.getByText('Nothing you type in the demo leaves this computer.')).toBeTruthy();
  });

  it('shows why the demo could not be started and stays on Home', async () => {
    const backend = createFakeBackend();
    backend.failNext('demo.open', { code: 'internal', message: 'The demo agent could not listen on 127.0.0.1.' });
    const { user } = await renderApp({ backend });
    await user.click(screen.getByRole('button', { name: 'Chat with the demo assistant' }));
    expect(await screen.findByText(/The demo could not be started\. The demo agent could not listen on 127\.0\.0\.1\./)).toBeTruthy();
    expect(screen.getByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    expect(backend.callsOf('talkie.connect')).toEqual([]);
  });

  it('gives every added agent an Open button named after it', async () => {
    const backend = createFakeBackend({
      agents: [
        { id: 'a1', url: 'https://crm.example.com/', display: 'crm.example.com', addedAt: '2025-01-01T00:00:00.000Z' },
        { id: 'a2', url: 'https://ops.example.org/', display: 'ops.example.org', addedAt: '2025-01-01T00:00:00.000Z' },
      ],
    });
    await renderApp({ backend });
    expect(screen.getByRole('button', { name: 'Open crm.example.com' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Open ops.example.org' })).toBeTruthy();
  });
});

describe('hardware strip', () => {
  const original = Object.getOwnPropertyDescriptor(window.navigator, 'mediaDevices');
  afterEach(() => {
    if (original) Object.defineProperty(window.navigator, 'mediaDevices', original);
    else Reflect.deleteProperty(window.navigator, 'mediaDevices');
  });

  function strip() {
    return within(screen.getByRole('region', { name: 'Hardware' }));
  }

  /** The details are in the sidebar's hardware popover: its button opens it. */
  async function openStrip() {
    fireEvent.click(await screen.findByRole('button', { name: /^Hardware/ }));
  }

  it('shows the NFC detail from main and "Not available" without navigator.mediaDevices', async () => {
    expect(navigator.mediaDevices).toBeUndefined();
    await renderApp();
    await openStrip();
    await waitFor(() => expect(strip().getByText('NFC reader support is not part of this version yet.')).toBeTruthy());
    expect(strip().getAllByText('Not available')).toHaveLength(3);
  });

  it('lists NFC readers and follows hardware.changed', async () => {
    const backend = createFakeBackend({ hardware: { nfc: { state: 'ready', readers: [] } } });
    await renderApp({ backend });
    await openStrip();
    await waitFor(() => expect(strip().getByText('No reader connected.')).toBeTruthy());
    act(() => backend.emit('hardware.changed', { nfc: { state: 'ready', readers: [{ name: 'ACS ACR122U', connected: true }] } }));
    expect(strip().getByText('ACS ACR122U – connected')).toBeTruthy();
  });

  it('counts cameras and microphones without asking for permission, numbering unlabelled ones', async () => {
    const listeners = new Set<() => void>();
    let devices = [
      { kind: 'videoinput', label: '', deviceId: '', groupId: '' },
      { kind: 'videoinput', label: '', deviceId: '', groupId: '' },
      { kind: 'audioinput', label: 'Desk microphone', deviceId: '', groupId: '' },
      { kind: 'audiooutput', label: 'Speakers', deviceId: '', groupId: '' },
    ];
    const getUserMedia = vi.fn();
    Object.defineProperty(window.navigator, 'mediaDevices', {
      configurable: true,
      value: {
        enumerateDevices: vi.fn(async () => devices),
        getUserMedia,
        addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
        removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
      },
    });
    await renderApp();
    await openStrip();
    await waitFor(() => expect(strip().getByText('Camera 2')).toBeTruthy());
    expect(strip().getByText('Camera 1')).toBeTruthy();
    expect(strip().getByText('Desk microphone')).toBeTruthy();
    expect(strip().queryByText('Speakers')).toBeNull();
    const cameras = strip().getByRole('heading', { name: 'Cameras' }).parentElement;
    expect(cameras?.textContent).toContain('Found: 2');

    devices = devices.filter((device) => device.kind !== 'videoinput');
    await act(async () => {
      for (const listener of listeners) listener();
    });
    await waitFor(() => expect(strip().queryByText('Camera 1')).toBeNull());
    expect(cameras?.textContent).toContain('None found.');
    expect(getUserMedia).not.toHaveBeenCalled();
  });
});
