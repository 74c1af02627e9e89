import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

async function openSettings(user: Awaited<ReturnType<typeof renderApp>>['user']) {
  await user.click(screen.getByRole('button', { name: 'Settings' }));
  const heading = await screen.findByRole('heading', { level: 1, name: 'Settings' });
  await screen.findByRole('radio', { name: 'Dark' });
  return heading;
}

function statusTexts(): string[] {
  return screen.getAllByRole('status').map((element) => element.textContent ?? '');
}

describe('settings screen', () => {
  it('opens from the Settings button and moves focus to its heading', async () => {
    const { user } = await renderApp();
    const heading = await openSettings(user);
    expect(document.activeElement).toBe(heading);
    expect(screen.queryByRole('heading', { name: 'Your agents' })).toBeNull();
    expect(screen.getByRole('group', { name: 'Language' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Appearance' })).toBeTruthy();
    expect(screen.getByRole('group', { name: 'Developer' })).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'System' }).checked).toBe(true);
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Normal' }).checked).toBe(true);
  });

  it('saves a theme change at once, announces it and applies data-theme to <html>', async () => {
    const { user, backend } = await renderApp();
    expect(document.documentElement.dataset.theme).toBe('system');
    await openSettings(user);

    await user.click(screen.getByRole('radio', { name: 'Dark' }));
    await waitFor(() => expect(document.documentElement.getAttribute('data-theme')).toBe('dark'));
    expect(backend.callsOf('settings.update')).toEqual([{ patch: { appearance: { theme: 'dark' } } }]);
    expect(backend.state.settings.appearance.theme).toBe('dark');
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Dark' }).checked).toBe(true);
    await waitFor(() => expect(statusTexts()).toContain('Saved'));
  });

  it('applies the text size to <html>', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    await user.click(screen.getByRole('radio', { name: 'Large' }));
    await waitFor(() => expect(document.documentElement.getAttribute('data-text-size')).toBe('large'));
    expect(backend.callsOf('settings.update')).toEqual([{ patch: { appearance: { textSize: 'large' } } }]);
  });

  it('saves the developer switches with their own patch', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    const http = screen.getByRole<HTMLInputElement>('checkbox', {
      name: 'Allow http:// to this computer and the local network (development only)',
    });
    const tokens = screen.getByRole<HTMLInputElement>('checkbox', {
      name: 'Allow pasting access tokens instead of signing in (developer switch)',
    });
    expect(http.getAttribute('aria-describedby')).toBeTruthy();
    await user.click(http);
    await waitFor(() => expect(backend.state.settings.developer.allowLocalHttp).toBe(true));
    await user.click(tokens);
    await waitFor(() => expect(backend.state.settings.developer.allowPastedTokens).toBe(true));
    expect(backend.callsOf('settings.update')).toEqual([
      { patch: { developer: { allowLocalHttp: true } } },
      { patch: { developer: { allowPastedTokens: true } } },
    ]);
    expect(http.checked).toBe(true);
    expect(tokens.checked).toBe(true);
  });

  it('saves the sign-in redirect choice', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    const privateUse = screen.getByRole<HTMLInputElement>('checkbox', { name: 'Return from the browser through an AgentDesk link (desktop app only)' });
    expect(privateUse.checked).toBe(false);
    await user.click(privateUse);
    await waitFor(() => expect(backend.state.settings.signIn?.redirect).toBe('private-use'));
    expect(backend.callsOf('settings.update')).toEqual([{ patch: { signIn: { redirect: 'private-use' } } }]);
  });

  it('records the call shortcut from the keys pressed in its field, refuses a bare letter, and goes back to the default', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    const field = screen.getByRole<HTMLInputElement>('textbox', { name: 'Call shortcut' });
    expect(field.value).toBe('Ctrl+Shift+Space');
    field.focus();
    await user.keyboard('t');
    expect(screen.getByText('Press it with Ctrl, Alt or Shift (only F1 to F24 work alone).')).toBeTruthy();
    expect(field.getAttribute('aria-invalid')).toBe('true');
    expect(backend.callsOf('settings.update')).toEqual([]);
    // Modifiers alone wait for the key; Ctrl+Alt+T is saved in Electron's canonical form.
    await user.keyboard('{Control>}{Alt>}t{/Alt}{/Control}');
    await waitFor(() => expect(backend.state.settings.voice?.shortcut).toBe('CommandOrControl+Alt+T'));
    expect(backend.callsOf('settings.update')).toEqual([{ patch: { voiceShortcut: 'CommandOrControl+Alt+T' } }]);
    expect(field.value).toBe('Ctrl+Alt+T');
    expect(field.getAttribute('aria-invalid')).toBeNull();
    // A function key alone is enough (user-event's key map has no F9: the event as a browser sends it).
    fireEvent.keyDown(field, { key: 'F9', code: 'F9' });
    await waitFor(() => expect(backend.state.settings.voice?.shortcut).toBe('F9'));
    // Tab still leaves the field.
    await user.keyboard('{Tab}');
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Use the default (Ctrl+Shift+Space)' }));
    await user.keyboard('{Enter}');
    await waitFor(() => expect(backend.state.settings.voice?.shortcut).toBeUndefined());
    expect(backend.callsOf('settings.update').at(-1)).toEqual({ patch: { voiceShortcut: null } });
    expect(field.value).toBe('Ctrl+Shift+Space');
    expect(document.activeElement).toBe(field);
  });

  it('reverts the control and shows the error when saving fails', async () => {
    const backend = createFakeBackend();
    backend.failNext('settings.update', { code: 'internal', message: 'The settings file could not be written.' });
    const { user } = await renderApp({ backend });
    await openSettings(user);

    await user.click(screen.getByRole('radio', { name: 'Light' }));
    expect(await screen.findByText('The settings file could not be written.')).toBeTruthy();
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Light' }).checked).toBe(false);
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'System' }).checked).toBe(true);
    expect(document.documentElement.dataset.theme).toBe('system');
    expect(statusTexts()).not.toContain('Saved');
  });

  it('switches the interface and <html lang> to Czech', async () => {
    const { user, backend } = await renderApp();
    expect(document.documentElement.lang).toBe('en');
    await openSettings(user);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Display language' }), 'cs');
    expect(await screen.findByRole('heading', { level: 1, name: 'Nastavení' })).toBeTruthy();
    expect(document.documentElement.lang).toBe('cs');
    expect(backend.callsOf('settings.update')).toEqual([{ patch: { language: 'cs' } }]);
    expect(screen.getByRole('button', { name: 'Zpět' })).toBeTruthy();
  });

  it('follows settings.changed from main', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    act(() => backend.emit('settings.changed', { ...backend.state.settings, appearance: { theme: 'light', textSize: 'large' } }));
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Light' }).checked).toBe(true);
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(document.documentElement.dataset.textSize).toBe('large');
  });

  it('returns home with Escape and puts focus on the home heading', async () => {
    const { user } = await renderApp();
    await openSettings(user);
    await user.click(screen.getByRole('radio', { name: 'Dark' }));
    await user.keyboard('{Escape}');
    const home = await screen.findByRole('heading', { level: 1, name: 'Your agents' });
    expect(document.activeElement).toBe(home);
    expect(screen.queryByRole('heading', { level: 1, name: 'Settings' })).toBeNull();
  });

  it('returns home with the Back button', async () => {
    const { user } = await renderApp();
    await openSettings(user);
    await user.click(screen.getByRole('button', { name: 'Back' }));
    const home = await screen.findByRole('heading', { level: 1, name: 'Your agents' });
    expect(document.activeElement).toBe(home);
  });

  it('shows name, version and shell from app.info', async () => {
    const { user } = await renderApp({ backend: createFakeBackend({ shell: 'web' }) });
    await openSettings(user);
    expect(await screen.findByText('AgentDesk 0.1.0 · web shell')).toBeTruthy();
  });
});
