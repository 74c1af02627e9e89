import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/base/errors';
import type { Action } from '../../../src/shared/talkie/content';
import { openDemo, pendingAction, push, send } from './chat-helpers';
import { createFakeBackend } from './fake-api';

async function proposed(action: Action, backend = createFakeBackend()) {
  backend.state.talkie.actions[action.id] = action;
  const app = await openDemo(backend);
  const runKey = await send(app.user, backend, 'send the offer');
  await push(backend, runKey, { type: 'run.started', threadId: 't-1', runId: runKey }, { type: 'action', action });
  return { ...app, backend, runKey };
}

function actionCard(summary: string) {
  return screen.getByRole('article', { name: summary });
}

describe('chat: actions (Talkie 1 §8)', () => {
  it('shows summary, risk, status and countdown; decides only when Confirm is clicked', async () => {
    const action = pendingAction();
    const { user, backend } = await proposed(action);
    const card = within(actionCard(action.summary));
    expect(card.getByText('Medium risk')).toBeTruthy();
    expect(card.getByText('Waiting for your decision')).toBeTruthy();
    expect(card.getByText(/^Expires in (09:5\d|10:00)$/)).toBeTruthy();
    // Announced once when it arrives (not every second).
    expect(screen.getByText(`New proposal waiting for your decision: ${action.summary}`)).toBeTruthy();

    expect(backend.callsOf('talkie.decide')).toEqual([]);
    await user.click(card.getByRole('button', { name: `Confirm: ${action.summary}` }));
    await waitFor(() => expect(backend.callsOf('talkie.decide')).toEqual([{ agentId: builtInDemoAgentId, actionId: action.id, decision: 'confirm' }]));
    await waitFor(() => expect(card.getByText('Completed')).toBeTruthy());
    expect(card.queryByRole('button', { name: `Confirm: ${action.summary}` })).toBeNull();
    expect(card.queryByText(/Expires in/)).toBeNull();
  });

  it('keeps focus on the action after Confirm: its status line, not <body> (#15)', async () => {
    const action = pendingAction();
    const { user } = await proposed(action);
    const card = within(actionCard(action.summary));
    card.getByRole('button', { name: `Confirm: ${action.summary}` }).focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(card.getByText('Completed')).toBeTruthy());
    expect(card.queryByRole('button', { name: `Confirm: ${action.summary}` })).toBeNull();
    expect(document.activeElement).toBe(card.getByText('Completed'));
    expect(document.activeElement?.getAttribute('tabindex')).toBe('-1');
  });

  it('keeps focus on the action after its own Cancel (#15)', async () => {
    const action = pendingAction();
    const { user } = await proposed(action);
    await user.click(screen.getByRole('button', { name: `Cancel: ${action.summary}` }));
    const card = within(actionCard(action.summary));
    await waitFor(() => expect(card.getByText('Cancelled')).toBeTruthy());
    expect(document.activeElement).toBe(card.getByText('Cancelled'));
  });

  it('moves focus from a focused Undo to the status line when the undo window closes (#15)', async () => {
    const running = pendingAction({ status: 'running', undoUntil: new Date(Date.now() + 1500).toISOString() });
    const { backend } = await proposed(running);
    backend.state.talkie.actions[running.id] = { ...running, status: 'done' };
    act(() => screen.getByRole('button', { name: `Undo: ${running.summary}` }).focus());
    const card = within(actionCard(running.summary));
    await waitFor(() => expect(card.getByText('Completed')).toBeTruthy(), { timeout: 5000 });
    expect(screen.queryByRole('button', { name: `Undo: ${running.summary}` })).toBeNull();
    expect(document.activeElement).toBe(card.getByText('Completed'));
  });

  it('sends cancel from the action Cancel button, distinct from the run Cancel button', async () => {
    const action = pendingAction();
    const { user, backend } = await proposed(action);
    expect(screen.getByRole('button', { name: 'Cancel' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: `Cancel: ${action.summary}` }));
    await waitFor(() => expect(backend.callsOf('talkie.decide')[0]?.decision).toBe('cancel'));
    expect(backend.callsOf('talkie.cancel')).toEqual([]);
    await waitFor(() => expect(within(actionCard(action.summary)).getByText('Cancelled')).toBeTruthy());
  });

  it('shows the note of a conflicting decision and the authoritative state', async () => {
    const action = pendingAction();
    const backend = createFakeBackend();
    backend.handle('talkie.decide', () =>
      ok({ action: { ...action, status: 'cancelled' as const }, updates: [], note: 'A different decision was already made on this proposal.' }),
    );
    const { user } = await proposed(action, backend);
    await user.click(screen.getByRole('button', { name: `Confirm: ${action.summary}` }));
    const card = within(actionCard(action.summary));
    expect(await card.findByText('A different decision was already made on this proposal.')).toBeTruthy();
    expect(card.getByText('Cancelled')).toBeTruthy();
  });

  it('applies the updates a decision returns (a result card)', async () => {
    const action = pendingAction();
    const backend = createFakeBackend();
    backend.handle('talkie.decide', () =>
      ok({
        action: { ...action, status: 'done' as const },
        updates: [{ type: 'card' as const, card: { id: 'result', title: 'Offer sent', fallbackText: 'Offer sent to novak@alfa.cz' } }],
      }),
    );
    const { user } = await proposed(action, backend);
    await user.click(screen.getByRole('button', { name: `Confirm: ${action.summary}` }));
    expect(await screen.findByRole('article', { name: 'Offer sent' })).toBeTruthy();
  });

  it('shows a decision error with Retry when it is retryable', async () => {
    const action = pendingAction();
    const backend = createFakeBackend();
    const { user } = await proposed(action, backend);
    backend.failNext('talkie.decide', { code: 'network_error', message: 'The server did not answer.', retryable: true });
    await user.click(screen.getByRole('button', { name: `Confirm: ${action.summary}` }));
    const card = within(actionCard(action.summary));
    expect(await card.findByText('The server did not answer.')).toBeTruthy();
    await user.click(card.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(backend.callsOf('talkie.decide')).toHaveLength(2));
    expect(backend.callsOf('talkie.decide')[1]?.decision).toBe('confirm');
  });

  it('keeps an older pending proposal when a new one arrives', async () => {
    const first = pendingAction();
    const { backend, runKey } = await proposed(first);
    const second = pendingAction({ id: 'a_78', summary: 'Delete the draft D-12' });
    await push(backend, runKey, { type: 'action', action: second });
    expect(screen.getByRole('button', { name: `Confirm: ${first.summary}` })).toBeTruthy();
    expect(screen.getByRole('button', { name: `Confirm: ${second.summary}` })).toBeTruthy();
  });

  it('disables the buttons of an expired proposal and asks main for its state once', async () => {
    const action = pendingAction({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    const backend = createFakeBackend();
    // proposed() makes main report it as it is: still pending (a clock skew between server and client).
    await proposed(action, backend);
    const confirm = screen.getByRole<HTMLButtonElement>('button', { name: `Confirm: ${action.summary}` });
    expect(confirm.disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: `Cancel: ${action.summary}` }).disabled).toBe(true);
    await waitFor(() => expect(backend.callsOf('talkie.action')).toEqual([{ agentId: builtInDemoAgentId, actionId: action.id }]));
    await act(async () => new Promise((resolve) => setTimeout(resolve, 1200)));
    expect(backend.callsOf('talkie.action')).toHaveLength(1);
    expect(backend.callsOf('talkie.decide')).toEqual([]);
    expect(within(actionCard(action.summary)).getByText('Expired: nothing was done')).toBeTruthy();
  });

  it('offers Undo while a running action can still be stopped, and refreshes when that time is over', async () => {
    const running = pendingAction({ status: 'running', undoUntil: new Date(Date.now() + 2500).toISOString() });
    const { backend } = await proposed(running);
    // By the time the undo window closed, the server sent the e-mail.
    backend.state.talkie.actions[running.id] = { ...running, status: 'done' };
    const undo = screen.getByRole('button', { name: `Undo: ${running.summary}` });
    // Seconds left of the window (how many depends on how busy the machine is).
    expect(undo.textContent).toMatch(/^Undo \([1-3] s left\)$/);
    await waitFor(() => expect(backend.callsOf('talkie.action')).toHaveLength(1), { timeout: 5000 });
    await waitFor(() => expect(within(actionCard(running.summary)).getByText('Completed')).toBeTruthy());
    expect(screen.queryByRole('button', { name: `Undo: ${running.summary}` })).toBeNull();
  });

  it('replaces the "you can still cancel it" card with its result when the undo window closes (#15)', async () => {
    const running = pendingAction({ status: 'running', undoUntil: new Date(Date.now() + 2500).toISOString() });
    const { backend, runKey } = await proposed(running);
    // By the time the undo window closes, the server sent it and stored the result under the same card id.
    backend.state.talkie.actions[running.id] = { ...running, status: 'done' };
    const sent = { id: 'card_status', title: 'Offer N-1 sent', fallbackText: 'Offer N-1 was sent.' };
    backend.state.talkie.threadItems['t-1'] = [{ kind: 'card', id: sent.id, card: sent }];
    const sending = { id: 'card_status', title: 'Sending offer N-1', fallbackText: 'Sending offer N-1; you can still cancel it.' };
    await push(backend, runKey, { type: 'card', card: sending });
    expect(screen.getByRole('article', { name: 'Sending offer N-1' })).toBeTruthy();
    await waitFor(() => expect(within(actionCard(running.summary)).getByText('Completed')).toBeTruthy(), { timeout: 5000 });
    expect(await screen.findByRole('article', { name: 'Offer N-1 sent' })).toBeTruthy();
    expect(screen.queryByRole('article', { name: 'Sending offer N-1' })).toBeNull();
  });

  it('Undo sends a cancel decision', async () => {
    const running = pendingAction({ status: 'running', undoUntil: new Date(Date.now() + 60_000).toISOString() });
    const { user, backend } = await proposed(running);
    await user.click(screen.getByRole('button', { name: `Undo: ${running.summary}` }));
    await waitFor(() => expect(backend.callsOf('talkie.decide')).toEqual([{ agentId: builtInDemoAgentId, actionId: running.id, decision: 'cancel' }]));
  });

  it('shows no buttons when the server allows only voice confirmation', async () => {
    const action = pendingAction({ buttons: false });
    await proposed(action);
    expect(screen.queryByRole('button', { name: `Confirm: ${action.summary}` })).toBeNull();
    expect(within(actionCard(action.summary)).getByText(/by voice/)).toBeTruthy();
  });
});
