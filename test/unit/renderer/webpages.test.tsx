import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WebPages } from '../../../src/shared/agentmesh/ipc-schemas';
import { parseUiLinks, uiLinksExtensionUri } from '../../../src/shared/agentmesh/ui-links';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { ConversationScreen } from '../../../src/renderer/conversation/ConversationScreen';
import { useTalkieProfile } from '../../../src/renderer/conversation/protocols/talkie';
import { AgentScreen } from '../../../src/renderer/screens/AgentScreen';
import { agentCallMain } from './agentcall-main';
import { WebPagesPanel } from '../../../src/renderer/screens/webpages/WebPagesPanel';
import workedExampleJson from '../../fixtures/agentmesh/worked-example.json';
import { createFakeBackend, type FakeBackend } from './fake-api';

// The spec's worked example (AgentMesh UI links 0.1 §11) as a module: jsdom's import.meta.url is not a file URL.
const workedExample = workedExampleJson as { capabilities: { extensions: { params: { uis: Record<string, unknown>[] } }[] } };
/** Where AgentMesh UI links 0.1 §11 says the card is served from: its own pages are same-origin, the status page is not. */
const larkfieldCardUrl = 'https://agent.larkfield.example/.well-known/agent-card.json';

/** What main answers for a card, built with the real parser (so the fixture is what main could send). */
function webPagesOf(card: unknown, cardUrl = larkfieldCardUrl): WebPages {
  const { links, problems } = parseUiLinks(card, { cardUrl });
  return { cardUrl, links, problems };
}

/** The worked example with more entries: no audience, an unknown kind and a dangling skill, and two that cannot be used. */
function cardWithOddEntries() {
  const uis = [
    ...workedExample.capabilities.extensions[0]!.params.uis,
    { url: 'https://agent.larkfield.example/help', label: 'Help centre', kind: 'help-desk' },
    { url: 'javascript:alert(1)', label: 'Click me' },
    { url: 'http://agent.larkfield.example/plain', label: 'Plain page', audience: 'public' },
    { url: 'https://agent.larkfield.example/calendar', label: 'Calendar', audience: 'client', skill: 'book-meeting' },
  ];
  return { ...workedExample, capabilities: { extensions: [{ uri: uiLinksExtensionUri, required: false, params: { uis } }] } };
}

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  document.documentElement.lang = '';
});

function renderPanel(backend: FakeBackend, agentId = 'agent-a', language: 'en' | 'cs' = 'en') {
  const user = userEvent.setup();
  const view = render(
    <I18nProvider setting={language}>
      <WebPagesPanel api={backend.api} agentId={agentId} />
    </I18nProvider>,
  );
  return { user, ...view };
}

const pageItem = (label: string) => screen.getByRole('button', { name: label }).closest('li')!;

async function expand(user: ReturnType<typeof userEvent.setup>, name: string | RegExp = /^Web pages/) {
  const toggle = await screen.findByRole('button', { name });
  expect(toggle.getAttribute('aria-expanded')).toBe('false');
  await user.click(toggle);
  expect(toggle.getAttribute('aria-expanded')).toBe('true');
}

describe('the Web pages panel', () => {
  it('renders the worked example (AgentMesh UI links 0.1 §11): client and public pages shown with their labels, the operator page behind a toggle, only the status page flagged', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(workedExample) } });
    const { user } = renderPanel(backend);
    // Collapsed: the count of pages shown by default, nothing listed yet.
    await expand(user, 'Web pages (2)');
    expect(backend.callsOf('agents.webPages')).toEqual([{ agentId: 'agent-a' }]);

    const reports = within(pageItem('Payroll reports'));
    expect(reports.getByText('Download completed payroll runs and filings for your account.')).toBeTruthy();
    expect(reports.getByText('for clients')).toBeTruthy();
    expect(reports.getByText('sign-in required')).toBeTruthy();
    expect(reports.getByText('reports')).toBeTruthy();
    expect(reports.queryByText(/other site/)).toBeNull();

    const status = within(pageItem('Service status'));
    expect(status.getByText('public')).toBeTruthy();
    expect(status.getByText('open')).toBeTruthy();
    expect(status.getByText('status')).toBeTruthy();
    expect(status.getByText('other site: status.larkfield.example')).toBeTruthy();

    expect(screen.queryByRole('button', { name: 'Operations dashboard' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Show operator pages (1)' }));
    const ops = within(pageItem('Operations dashboard'));
    expect(ops.getByText('for the operator')).toBeTruthy();
    expect(ops.getByText('dashboard')).toBeTruthy();
    expect(ops.queryByText(/other site/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Hide operator pages' }));
    expect(screen.queryByRole('button', { name: 'Operations dashboard' })).toBeNull();

    // Nothing here is a link the page could follow, an embed or a frame; nothing was opened.
    expect(document.querySelectorAll('a, iframe, embed, object, img')).toHaveLength(0);
    expect(backend.callsOf('external.open')).toEqual([]);
  });

  it('shows a missing audience as "audience not stated", never as public; an unknown kind as-is; a dangling skill noted; skipped entries summarised', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(cardWithOddEntries()) } });
    const { user } = renderPanel(backend);
    await expand(user, 'Web pages (4)');

    const help = within(pageItem('Help centre'));
    expect(help.getByText('audience not stated')).toBeTruthy();
    expect(help.queryByText('public')).toBeNull();
    expect(help.getByText('help-desk')).toBeTruthy();
    // The audience note is the label itself, not said twice.
    expect(help.queryByText(/Audience not stated/)).toBeNull();

    const calendar = within(pageItem('Calendar'));
    expect(calendar.getByText('The page names the skill "book-meeting", which is not among the skills the card declares.')).toBeTruthy();

    expect(screen.queryByRole('button', { name: 'Click me' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Plain page' })).toBeNull();
    const summary = screen.getByText('2 entries were skipped');
    const details = summary.closest('details')!;
    expect(details.open).toBe(false);
    expect(within(details).getByText(/The url uses javascript:, not https:/)).toBeTruthy();
    expect(within(details).getByText(/The url uses http:, not https: \(unencrypted/)).toBeTruthy();
    expect(within(details).queryByText(/book-meeting/)).toBeNull();
  });

  it('shows the full URL on a click and opens it only on "Open in browser", with the exact URL', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(workedExample) } });
    const { user } = renderPanel(backend);
    await expand(user);

    const link = screen.getByRole('button', { name: 'Service status' });
    await user.click(link);
    expect(link.getAttribute('aria-expanded')).toBe('true');
    const confirm = within(screen.getByRole('group', { name: 'Open Service status?' }));
    expect(confirm.getByText('https://status.larkfield.example/')).toBeTruthy();
    expect(backend.callsOf('external.open')).toEqual([]);
    const open = confirm.getByRole('button', { name: 'Open in browser' });
    expect(document.activeElement).toBe(open);
    await user.click(open);
    await waitFor(() => expect(backend.callsOf('external.open')).toEqual([{ url: 'https://status.larkfield.example/' }]));
    await waitFor(() => expect(screen.queryByRole('group', { name: 'Open Service status?' })).toBeNull());
  });

  it('opens nothing on Cancel, and says so when the browser could not be started', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(workedExample) } });
    const { user } = renderPanel(backend);
    await expand(user);

    await user.click(screen.getByRole('button', { name: 'Payroll reports' }));
    const group = screen.getByRole('group', { name: 'Open Payroll reports?' });
    expect(within(group).getByText('https://agent.larkfield.example/reports')).toBeTruthy();
    await user.click(within(group).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('group', { name: 'Open Payroll reports?' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Payroll reports' }));
    expect(backend.callsOf('external.open')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Payroll reports' }));
    backend.failNext('external.open', { code: 'no_browser', message: 'No web browser could be started to open the link.' });
    await user.click(screen.getByRole('button', { name: 'Open in browser' }));
    expect((await screen.findByRole('alert')).textContent).toBe('The page could not be opened. No web browser could be started to open the link.');
    expect(screen.getByRole('group', { name: 'Open Payroll reports?' })).toBeTruthy();
  });

  it('shows nothing at all when the card lists no pages and has nothing to say about them', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-b': webPagesOf(workedExample) } });
    const { container } = render(
      <I18nProvider setting="en">
        <div data-testid="none">
          <WebPagesPanel api={backend.api} agentId="agent-a" />
        </div>
        <WebPagesPanel api={backend.api} agentId="agent-b" />
      </I18nProvider>,
    );
    // The fake main answers in order: once agent-b's panel is there, agent-a's answer has arrived too.
    await screen.findByRole('button', { name: 'Web pages (2)' });
    expect(backend.callsOf('agents.webPages')).toEqual([{ agentId: 'agent-a' }, { agentId: 'agent-b' }]);
    expect(within(container).getByTestId('none').innerHTML).toBe('');
    expect(screen.getAllByRole('button', { name: /Web pages/ })).toHaveLength(1);
  });

  it('lists a card that declares the extension but no usable page, with its reasons', async () => {
    const card = { capabilities: { extensions: [{ uri: uiLinksExtensionUri, params: { uis: [] } }] } };
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(card) } });
    const { user } = renderPanel(backend);
    await expand(user, 'Web pages (0)');
    expect(screen.getByText('Notes about the web pages on this card (1)')).toBeTruthy();
    expect(screen.getByText('params.uis is empty; the extension must list at least one page.')).toBeTruthy();
  });

  it('says the pages could not be read, and tries again', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(workedExample) } });
    backend.failNext('agents.webPages', { code: 'network_error', message: 'The agent card could not be read: timed out.', retryable: true });
    const { user } = renderPanel(backend);
    await expand(user, 'Web pages (0)');
    expect(screen.getByRole('alert').textContent).toBe('The agent’s web pages could not be read. The agent card could not be read: timed out.');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('button', { name: 'Payroll reports' })).toBeTruthy();
    expect(backend.callsOf('agents.webPages')).toHaveLength(2);
  });

  it('speaks Czech', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-a': webPagesOf(cardWithOddEntries()) } });
    const { user } = renderPanel(backend, 'agent-a', 'cs');
    await expand(user, 'Webové stránky (4)');
    expect(within(pageItem('Payroll reports')).getByText('pro klienty')).toBeTruthy();
    expect(within(pageItem('Help centre')).getByText('pro koho je, neuvedeno')).toBeTruthy();
    expect(within(pageItem('Service status')).getByText('jiný web: status.larkfield.example')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Zobrazit stránky pro provozovatele (1)' })).toBeTruthy();
    expect(screen.getByText('Přeskočené položky: 2')).toBeTruthy();
  });
});

describe('the Web pages panel on the agent screens', () => {
  it('is in an AgentCall agent’s Details, even when the session cannot be opened', async () => {
    const backend = createFakeBackend({ webPages: { [builtInAgentCallDemoId]: webPagesOf(workedExample) } });
    agentCallMain(backend);
    backend.failNext('agentcall.open', { code: 'network_error', message: 'The agent could not be reached.', retryable: true });
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <AgentScreen
          api={backend.api}
          headingRef={createRef()}
          agentId={builtInAgentCallDemoId}
          label="Larkfield"
          protocol="agentcall"
          onBack={() => undefined}
        />
      </I18nProvider>,
    );
    // The pages stand apart from the session: there while it could not be opened.
    await screen.findByText(/Could not connect to/);
    await user.click(screen.getByRole('button', { name: /Details/ }));
    await expand(user, 'Web pages (2)');
    expect(screen.getByRole('region', { name: 'Web pages from the agent’s card' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Payroll reports' })).toBeTruthy();
  });

  it('is in the Talkie agent’s details', async () => {
    const backend = createFakeBackend({ webPages: { 'agent-t': webPagesOf(workedExample) } });
    const user = userEvent.setup();
    render(
      <I18nProvider setting="en">
        <ConversationScreen api={backend.api} headingRef={createRef()} agentId="agent-t" label="Larkfield" useProfile={useTalkieProfile} />
      </I18nProvider>,
    );
    await waitFor(() => expect(backend.callsOf('talkie.connect')).toEqual([{ agentId: 'agent-t' }]));
    await user.click(screen.getByRole('button', { name: 'Details' }));
    await expand(user, 'Web pages (2)');
    expect(screen.getByRole('button', { name: 'Service status' })).toBeTruthy();
    expect(backend.callsOf('agents.webPages')).toEqual([{ agentId: 'agent-t' }]);
  });
});
