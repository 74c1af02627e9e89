import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src/renderer/App';
import { Root } from '../../../src/renderer/Root';
import type { Notice } from '../../../src/shared/ipc/notices';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

const movedAside: Notice = {
  code: 'file_moved_aside',
  params: { file: 'settings.json', aside: '/data/settings.json.corrupt-1' },
  detail: 'it is not valid JSON',
  message: 'settings.json could not be read (it is not valid JSON). It was moved to /data/settings.json.corrupt-1 and defaults are in use.',
};
const keychain: Notice = {
  code: 'keychain_memory',
  detail: 'Secret Service not running',
  message: 'No keychain is reachable (Secret Service not running): sign-ins last until AgentDesk closes.',
};
const notSaved: Notice = {
  code: 'conversation_not_saved',
  detail: 'agui-threads/a.json could not be saved in /data/agui-threads: the disk is full (ENOSPC). The saved copy is unchanged.',
  message:
    'The conversation is kept until AgentDesk closes, but not on disk: agui-threads/a.json could not be saved in /data/agui-threads: the disk is full (ENOSPC). The saved copy is unchanged.',
};
const newer: Notice = {
  code: 'file_newer_read',
  params: { file: 'agui-servers.json', version: '3', current: '1' },
  message: 'agui-servers.json was written by a newer AgentDesk (version 3); this version reads it as version 1, and will not change it.',
};

describe('app shell', () => {
  it('tells the user to start the app when the bridge is missing', () => {
    render(<Root bridge={{ kind: 'missing' }} />);
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk is not connected' })).toBeTruthy();
    expect(screen.getByText(/AgentDesk must be opened with npm start/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Settings' })).toBeNull();
  });

  it('tells the user to start the app when the web shell refuses the page (no session from a launch link)', async () => {
    const backend = createFakeBackend();
    render(<Root bridge={{ kind: 'web', api: backend.api, connected: Promise.resolve(false) }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'AgentDesk is not connected' })).toBeTruthy();
    expect(screen.getByText(/A launch link works once/)).toBeTruthy();
  });

  it('shows the app once the web shell took the page', async () => {
    const backend = createFakeBackend();
    render(<Root bridge={{ kind: 'web', api: backend.api, connected: Promise.resolve(true) }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
  });

  it('renders the app for a bridge with an API', async () => {
    const backend = createFakeBackend();
    render(<Root bridge={{ kind: 'web', api: backend.api }} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
  });

  it('puts the skip link first, then the sidebar with Settings', async () => {
    const { user } = await renderApp();
    await user.tab();
    const skip = screen.getByRole('link', { name: 'Skip to content' });
    expect(document.activeElement).toBe(skip);
    expect(skip.getAttribute('href')).toBe('#content');
    await user.tab();
    const sidebar = screen.getByRole('navigation', { name: 'AgentDesk' });
    expect(document.activeElement).toBe(within(sidebar).getAllByRole('button')[0]);
    expect(within(sidebar).getByRole('button', { name: 'Settings' })).toBeTruthy();
    expect(screen.getByRole('main').id).toBe('content');
  });

  it('opens the sidebar as a drawer from the menu button; Escape closes it and focus goes back', async () => {
    const { user } = await renderApp();
    const menu = screen.getByRole('button', { name: 'Open the menu' });
    await user.click(menu);
    expect(menu.getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement).toBe(within(screen.getByRole('navigation', { name: 'AgentDesk' })).getAllByRole('button')[0]);
    await user.keyboard('{Escape}');
    expect(menu.getAttribute('aria-expanded')).toBe('false');
    expect(document.activeElement).toBe(menu);
    // Still on Home: the drawer took the Escape.
    expect(screen.getByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
  });

  it('keeps Tab inside the open drawer: from its last control back to its first', async () => {
    const { user } = await renderApp();
    await user.click(screen.getByRole('button', { name: 'Open the menu' }));
    const buttons = within(screen.getByRole('navigation', { name: 'AgentDesk' })).getAllByRole('button');
    const drawer = screen.getByRole('navigation', { name: 'AgentDesk' }).closest('.app-sidebar') as HTMLElement;
    const inside = [...drawer.querySelectorAll<HTMLElement>('a[href], button:not([disabled]), input:not([disabled]), [tabindex]:not([tabindex="-1"])')];
    expect(document.activeElement).toBe(buttons[0]);
    inside[inside.length - 1]!.focus();
    await user.tab();
    expect(document.activeElement).toBe(inside[0]);
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(inside[inside.length - 1]);
  });

  it('"Add an agent" in the sidebar moves focus to the address field on Home', async () => {
    const { user } = await renderApp();
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    await user.click(screen.getByRole('button', { name: /Add an agent/ }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    expect(document.activeElement?.tagName).toBe('INPUT');
  });

  it('keeps a dismissed notice dismissed at the next launch (main keeps it in the settings)', async () => {
    const text = 'No keychain is reachable: sign-ins last until AgentDesk closes.';
    const backend = createFakeBackend({ notices: [keychain] });
    const { user } = await renderApp({ backend });
    await screen.findByText(text);
    await user.click(screen.getByRole('button', { name: 'Dismiss the start-up notice' }));
    await waitFor(() => expect(backend.callsOf('settings.update').at(-1)?.patch).toEqual({ notices: { dismissed: [keychain.message] } }));
    cleanup();
    // The next launch: main reports the same notice; the settings say it was dismissed.
    await renderApp({ backend });
    await screen.findByRole('heading', { level: 1, name: 'Your agents' });
    await waitFor(() => expect(backend.callsOf('settings.get').length).toBeGreaterThan(1));
    expect(screen.queryByText(text)).toBeNull();
    // A notice not dismissed yet still shows.
    act(() => backend.emit('app.notice', notSaved));
    expect(await screen.findByText('A conversation with an agent is kept until AgentDesk closes, but not on disk.')).toBeTruthy();
  });

  it('moves focus into the content with the skip link', async () => {
    const { user } = await renderApp();
    await user.tab();
    await user.keyboard('{Enter}');
    expect(document.activeElement).toBe(screen.getByRole('heading', { level: 1, name: 'Your agents' }));
  });

  it('shows start-up notices in a dismissible status banner, the cause behind Details', async () => {
    const backend = createFakeBackend({ notices: [movedAside] });
    const { user } = await renderApp({ backend });
    const notice = await screen.findByText(/^settings\.json could not be read\. It was moved to \/data\/settings\.json\.corrupt-1 and defaults are in use\./);
    expect(notice.closest('[role="status"]')).not.toBeNull();
    // The parse error is not the main line; it is one click away (the banner's one Details: the whole text and the cause).
    expect(screen.getByText('it is not valid JSON').closest('[hidden]')).not.toBeNull();
    const details = screen.getByRole('button', { name: 'Details' });
    expect(details.getAttribute('aria-expanded')).toBe('false');
    await user.click(details);
    expect(screen.getByText('it is not valid JSON').closest('[hidden]')).toBeNull();
    expect(details.getAttribute('aria-expanded')).toBe('true');
    expect(details.textContent).toBe('Hide details');
    await user.click(screen.getByRole('button', { name: 'Dismiss the start-up notice' }));
    expect(screen.queryByText(/settings\.json could not be read/)).toBeNull();
  });

  it('shows a notice that arrives later (app.notice) in the same banner, once, and again after a dismissal only for a new one', async () => {
    const backend = createFakeBackend({ notices: [movedAside] });
    const { user } = await renderApp({ backend });
    await screen.findByText(/settings\.json could not be read/);
    const later = 'A conversation with an agent is kept until AgentDesk closes, but not on disk.';
    act(() => {
      backend.emit('app.notice', notSaved);
      backend.emit('app.notice', notSaved);
    });
    const shown = await screen.findByText(later);
    expect(shown.closest('[role="status"]')).not.toBeNull();
    expect(screen.getAllByText(later)).toHaveLength(1);
    expect(screen.getByText('Notice')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Dismiss the notice' }));
    expect(screen.queryByText(later)).toBeNull();
    expect(screen.queryByText(/settings\.json could not be read/)).toBeNull();
    act(() => backend.emit('app.notice', newer));
    expect(
      await screen.findByText('agui-servers.json was written by a newer AgentDesk (version 3); this version reads it as version 1, and will not change it.'),
    ).toBeTruthy();
    expect(screen.queryByText(later)).toBeNull();
  });

  it('says main’s notices in Czech when the app is in Czech (codes and names cross, not English sentences)', async () => {
    const backend = createFakeBackend({ notices: [movedAside, keychain] });
    backend.state.settings = { ...backend.state.settings, language: 'cs' };
    render(<App api={backend.api} />);
    const banner = await screen.findByText('Upozornění při spuštění');
    const list = banner.closest('[role="status"]') as HTMLElement;
    expect(
      within(list).getByText(/^Soubor settings\.json nešel přečíst\. Byl přesunut do \/data\/settings\.json\.corrupt-1 a používá se výchozí nastavení\./),
    ).toBeTruthy();
    expect(within(list).getByText('Klíčenka není dostupná: přihlášení vydrží jen do zavření AgentDesku.')).toBeTruthy();
    // One Details for the banner's one line, the causes behind it.
    expect(within(list).getAllByRole('button', { name: 'Podrobnosti' })).toHaveLength(1);
    expect(within(list).getByText('Secret Service not running').closest('[hidden]')).not.toBeNull();
    expect(list.textContent).not.toMatch(/could not|keychain is|defaults/i);
    act(() => backend.emit('app.notice', notSaved));
    expect(await within(list).findByText('Konverzace s agentem zůstane do zavření AgentDesku, ale na disk se neuložila.')).toBeTruthy();
    expect(list.querySelector('[lang="en"]:not(.error-details code)')).toBeNull();
  });

  it('shows nothing until the settings are read, then its first screen in their language, theme and text size (no flash of the defaults)', async () => {
    const backend = createFakeBackend();
    backend.state.settings = { ...backend.state.settings, language: 'cs', appearance: { theme: 'dark', textSize: 'large' } };
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const api = { ...backend.api, settings: { ...backend.api.settings, get: async () => (await held, backend.api.settings.get()) } };
    render(<App api={api} />);
    // The other loads (agents, app info) answer meanwhile: still nothing is shown in the defaults.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('heading', { level: 1 })).toBeNull();
    expect(document.documentElement.dataset.theme).toBeUndefined();
    await act(async () => release());
    expect(await screen.findByRole('heading', { level: 1, name: 'Vaši agenti' })).toBeTruthy();
    expect({ ...document.documentElement.dataset }).toMatchObject({ theme: 'dark', textSize: 'large' });
  });

  it('shows the app in the defaults when the settings cannot be read', async () => {
    const backend = createFakeBackend();
    const api = { ...backend.api, settings: { ...backend.api.settings, get: () => Promise.reject(new Error('main did not answer')) } };
    render(<App api={api} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
  });

  it('keeps the app on screen while Settings loads again after a failure (only the first load shows nothing)', async () => {
    const backend = createFakeBackend();
    backend.failNext('settings.get', { code: 'internal', message: 'main did not answer' });
    const user = userEvent.setup();
    render(<App api={backend.api} />);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Settings' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'Settings' });
    expect(await screen.findByText(/Settings could not be loaded\./)).toBeTruthy();
    const release = backend.holdNext('settings.get');
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    // While it loads again, the same screen stays (nothing was unmounted).
    expect(heading.isConnected).toBe(true);
    release();
    expect(await screen.findByRole('group', { name: 'Theme' })).toBeTruthy();
    expect(heading.isConnected).toBe(true);
  });

  it('shows a permanent alert when the web shell connection closes', async () => {
    let close: (code: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (close = resolve));
    await renderApp({ closed });
    expect(screen.queryByRole('alert')).toBeNull();
    await act(async () => close(1006));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('Connection to AgentDesk was lost. Restart the app.'));
    expect(screen.queryByRole('button', { name: /dismiss/i })).toBeNull();
  });

  it('unsubscribes from every event when unmounted', async () => {
    const backend = createFakeBackend();
    const { unmount } = await renderApp({ backend });
    await waitFor(() => expect(backend.listenerCount('hardware.changed')).toBe(1));
    expect(backend.listenerCount('agents.changed')).toBe(1);
    expect(backend.listenerCount('settings.changed')).toBe(1);
    expect(backend.listenerCount('app.notice')).toBe(1);
    unmount();
    expect(backend.listenerCount('app.notice')).toBe(0);
    expect(backend.listenerCount('agents.changed')).toBe(0);
    expect(backend.listenerCount('settings.changed')).toBe(0);
    expect(backend.listenerCount('hardware.changed')).toBe(0);
  });
});
