import { loadAgentScreen } from '../../../src/renderer/screens/LazyAgentScreen';
import { cleanup, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, expect } from 'vitest';
import { App } from '../../../src/renderer/App';
import { createFakeBackend, type FakeBackend } from './fake-api';

// Without vitest globals, Testing Library cannot register its own cleanup.
afterEach(() => {
  cleanup();
  const root = document.documentElement;
  root.removeAttribute('data-theme');
  root.removeAttribute('data-text-size');
  root.lang = '';
});

export async function renderApp(options: { backend?: FakeBackend; closed?: Promise<number> } = {}) {
  const backend = options.backend ?? createFakeBackend();
  const user = userEvent.setup();
  // The app loads the agent screens' chunk once Home is up (LazyAgentScreen); here it is there before, so
  // that a test's first click on an agent does not wait for vitest to transform the screens.
  await loadAgentScreen();
  // As Root does: the app gets main's policy.status (none unless the test sets one).
  const view = render(<App api={backend.api} closed={options.closed} policy={backend.state.policy} />);
  // Wait for the first load so that tests start from a settled screen.
  await screen.findByRole('heading', { level: 1, name: 'Your agents' });
  await waitFor(() => expect(screen.queryByText('Loading your agents…')).toBeNull());
  return { backend, user, ...view };
}
