import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { renderApp } from './render-app';

async function openSettings(user: Awaited<ReturnType<typeof renderApp>>['user']) {
  await user.click(screen.getByRole('button', { name: 'Settings' }));
  await screen.findByRole('heading', { level: 1, name: 'Settings' });
}

const statusTexts = () => screen.getAllByRole('status').map((element) => element.textContent ?? '');

describe('Settings → Diagnostics', () => {
  it('Save diagnostics… asks main for the bundle and says where it went', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    expect(screen.getByRole('heading', { level: 2, name: 'Diagnostics' })).toBeTruthy();
    const button = screen.getByRole('button', { name: 'Save diagnostics…' });
    await user.click(button);
    await waitFor(() => expect(statusTexts()).toContain('Diagnostics saved to /home/user/Downloads/agentdesk-diagnostics.json.'));
    expect(backend.callsOf('diagnostics.save')).toEqual([{}]);
    expect(document.activeElement).toBe(button);
  });

  it('shows main’s refusal under the admin PIN', async () => {
    const { user, backend } = await renderApp();
    await openSettings(user);
    backend.failNext('diagnostics.save', { code: 'not_allowed', message: "Diagnostics are behind the administrator's PIN (device policy)." });
    await user.click(screen.getByRole('button', { name: 'Save diagnostics…' }));
    await waitFor(() => expect(statusTexts().some((text) => text.includes("Diagnostics are behind the administrator's PIN"))).toBe(true));
  });
});
