import { act, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { openDemo, push, send } from './chat-helpers';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

describe('a lost connection to AgentDesk ends the spinner with a message (#15: a status never contradicts itself)', () => {
  it('Talkie: "answering…" with a spinner becomes the message that the answer cannot arrive', async () => {
    let lose: (code: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (lose = resolve));
    const backend = createFakeBackend();
    const { user, container } = await openDemo(backend, { closed });
    const runKey = await send(user, backend, 'hello');
    await push(backend, runKey, { type: 'run.started', threadId: 't-1', runId: runKey });
    expect(screen.getByText('Agent is answering…')).toBeTruthy();
    expect(container.querySelector('.run-status .spinner')).not.toBeNull();

    await act(async () => {
      lose(1006);
      await closed;
    });
    expect(screen.getByText('Connection to AgentDesk was lost. Restart the app.')).toBeTruthy();
    expect(screen.getByText('AgentDesk stopped: the rest of this answer cannot arrive.')).toBeTruthy();
    expect(screen.queryByText('Agent is answering…')).toBeNull();
    expect(container.querySelector('.run-status .spinner')).toBeNull();
  });

  it('plain AG-UI: the conversation screen’s status line says the same, without a spinner', async () => {
    let lose: (code: number) => void = () => undefined;
    const closed = new Promise<number>((resolve) => (lose = resolve));
    const { user, container } = await renderApp({ backend: createFakeBackend(), closed });
    await user.click(screen.getByRole('button', { name: 'Watch an agent work' }));
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    await waitFor(() => expect(screen.getByText('Agent is answering…')).toBeTruthy());
    expect(container.querySelector('.run-status .spinner')).not.toBeNull();

    await act(async () => {
      lose(1006);
      await closed;
    });
    expect(screen.getByText('Connection to AgentDesk was lost. Restart the app.')).toBeTruthy();
    expect(screen.getByText('AgentDesk stopped: the rest of this answer cannot arrive.')).toBeTruthy();
    expect(screen.queryByText('Agent is answering…')).toBeNull();
    expect(container.querySelector('.run-status .spinner')).toBeNull();
  });
});
