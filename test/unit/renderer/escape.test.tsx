import { screen, waitFor } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderApp } from './render-app';

/**
 * Escape never leaves a conversation (#26): no chat app navigates on Escape. It closes what is open
 * (a dialog, the drawer, the chat search's text) or does nothing — in the empty composer, in the
 * empty search box and with the focus nowhere in particular, on every agent screen. The sidebar
 * still goes elsewhere.
 */

/** The demo's three sides, as Home opens them, and the heading each screen shows. */
const demos = [
  { name: 'Talkie', tile: 'Chat with the demo assistant', heading: 'AgentDesk Demo', search: true },
  { name: 'AgentCall', tile: 'Scan and teach objects', heading: /AgentDesk demo agent/, search: false },
  { name: 'plain AG-UI', tile: 'Watch an agent work', heading: 'Built-in demo: an agent at work', search: true },
] as const;

async function openDemo(tile: string, heading: string | RegExp): Promise<{ user: UserEvent }> {
  const { user } = await renderApp();
  await user.click(screen.getByRole('button', { name: tile }));
  await screen.findByRole('heading', { level: 1, name: heading });
  await screen.findByRole('textbox', { name: 'Message' });
  return { user };
}

function expectStillOn(heading: string | RegExp, where: string): void {
  expect(screen.queryByRole('heading', { level: 1, name: 'Your agents' }), `${where}: Escape went to Home`).toBeNull();
  expect(screen.getByRole('heading', { level: 1, name: heading }), `${where}: the conversation is gone`).toBeTruthy();
}

describe('Escape in a conversation', () => {
  for (const demo of demos) {
    it(`${demo.name}: stays on the conversation from the empty composer and with the focus on the page`, async () => {
      const { user } = await openDemo(demo.tile, demo.heading);
      const composer = screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
      await user.click(composer);
      expect(composer.value).toBe('');
      await user.keyboard('{Escape}');
      expectStillOn(demo.heading, 'the empty composer');
      expect(document.activeElement).toBe(composer);

      (document.activeElement as HTMLElement | null)?.blur();
      await user.keyboard('{Escape}');
      expectStillOn(demo.heading, 'the focus on the page');
    });

    if (demo.search) {
      it(`${demo.name}: Escape in the chat search clears its text, and in the empty box does nothing`, async () => {
        const { user } = await openDemo(demo.tile, demo.heading);
        const search = screen.getByRole<HTMLInputElement>('searchbox', { name: 'Search chats' });
        await user.click(search);
        await user.keyboard('{Escape}');
        expectStillOn(demo.heading, 'the empty search box');
        expect(document.activeElement).toBe(search);

        await user.type(search, 'offer');
        await user.keyboard('{Escape}');
        expect(search.value).toBe('');
        expectStillOn(demo.heading, 'the search box with text');
      });
    }
  }

  it('the sidebar still goes to Home', async () => {
    const { user } = await openDemo('Chat with the demo assistant', 'AgentDesk Demo');
    await user.click(screen.getByRole('button', { name: 'AgentDesk' }));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy());
  });
});
