import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/renderer/App';
import { CrashBoundary } from '../../../src/renderer/components/CrashBoundary';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { applyAguiEvent, beginRun } from '../../../src/shared/agui/run-model';
import { builtInDemoAgentId } from '../../../src/shared/ipc/contract';
import { messageField, openDemo, pendingAction, transcript } from './chat-helpers';
import { ok } from '../../../src/shared/base/errors';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend, type FakeBackend } from './fake-api';

/**
 * A reload of the page or a crashed renderer process: the React tree is gone, main is not. Here
 * that is an unmount and a fresh render of App on the same fake main (which keeps the renderer's
 * state with main's own UiMemory).
 */
async function reload(backend: FakeBackend) {
  cleanup();
  const user = userEvent.setup();
  render(<App api={backend.api} />);
  return user;
}

/** Main holds exactly what the field shows (the debounced ui.saveDraft was answered). */
async function draftSaved(field: HTMLTextAreaElement) {
  await waitFor(() => expect(field.dataset.draftSaved).toBe('true'), { timeout: 3000 });
}

describe('renderer state kept in main across a reload or a renderer crash', () => {
  it('Talkie: the open chat, its thread with a pending action card, and the draft come back', async () => {
    const backend = createFakeBackend();
    const action = pendingAction({ threadId: 't-1' });
    backend.state.talkie.threads = [{ id: 't-1', title: 'Offer for Alfa', channel: 'chat', createdAt: '2026-10-22T10:00:00Z' }];
    backend.state.talkie.threadItems['t-1'] = [
      { kind: 'user', id: 'm1', text: 'Prepare the offer', state: 'sent' },
      { kind: 'action', id: action.id, action },
    ];
    backend.state.talkie.actions[action.id] = action;
    const { user } = await openDemo(backend);
    await user.click(await screen.findByRole('button', { name: /^Offer for Alfa/ }));
    await transcript().findByText('Prepare the offer');
    await user.type(messageField(), 'Also add{Shift>}{Enter}{/Shift}a discount');
    await draftSaved(messageField());

    const again = await reload(backend);
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk Demo' });
    expect(await transcript().findByText('Prepare the offer')).toBeTruthy();
    expect(transcript().getByRole('button', { name: /^Confirm: / })).toBeTruthy();
    expect(messageField().value).toBe('Also add\na discount');
    expect(backend.callsOf('talkie.thread').at(-1)).toEqual({ agentId: builtInDemoAgentId, threadId: 't-1' });

    // The pending action can still be decided; a sent message clears the draft in main too.
    await again.click(transcript().getByRole('button', { name: /^Confirm: / }));
    await waitFor(() => expect(backend.callsOf('talkie.decide')).toEqual([{ agentId: builtInDemoAgentId, actionId: action.id, decision: 'confirm' }]));
    await again.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(1));
    await draftSaved(messageField());
    await reload(backend);
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk Demo' });
    await transcript().findByText('Prepare the offer');
    expect(messageField().value).toBe('');
  }, 20_000);

  it('Talkie: a run that was streaming when the page went away shows its end once main reports it', async () => {
    const backend = createFakeBackend();
    backend.state.talkie.threads = [{ id: 't-1', title: 'Offer for Alfa', channel: 'chat', createdAt: '2026-10-22T10:00:00Z' }];
    backend.state.talkie.threadItems['t-1'] = [{ kind: 'user', id: 'm1', text: 'Prepare the offer', state: 'sent' }];
    const { user } = await openDemo(backend);
    await user.click(await screen.findByRole('button', { name: /^Offer for Alfa/ }));
    await transcript().findByText('Prepare the offer');

    await reload(backend);
    await screen.findByRole('heading', { level: 1, name: 'AgentDesk Demo' });
    await transcript().findByText('Prepare the offer');
    // The run goes on in main; when it ends, the server has the whole answer and this page shows it.
    backend.state.talkie.threadItems['t-1'] = [
      { kind: 'user', id: 'm1', text: 'Prepare the offer', state: 'sent' },
      { kind: 'assistant', id: 'm2', text: 'Here is the whole offer.', streaming: false },
    ];
    act(() => backend.emit('talkie.runEnded', { agentId: builtInDemoAgentId, runKey: 'run-before-reload', threadId: 't-1', outcome: { kind: 'finished' } }));
    expect(await transcript().findByText('Here is the whole offer.')).toBeTruthy();
    // Another thread's end changes nothing here.
    const loads = backend.callsOf('talkie.thread').length;
    act(() => backend.emit('talkie.runEnded', { agentId: builtInDemoAgentId, runKey: 'run-other', threadId: 't-9', outcome: { kind: 'finished' } }));
    expect(backend.callsOf('talkie.thread')).toHaveLength(loads);
  }, 20_000);

  it('plain AG-UI: the screen, the open interrupt (main keeps it) and the draft come back', async () => {
    const agentId = 'agui-1';
    const backend = createFakeBackend({
      agents: [{ id: agentId, url: 'https://ide.example.com/agui', display: 'ide.example.com/agui', addedAt: '2026-11-30T00:00:00Z', protocol: 'agui' }],
    });
    const user = await reload(backend);
    await user.click(await screen.findByRole('button', { name: 'Open ide.example.com/agui' }));
    const field = await screen.findByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
    await user.type(field, 'Deploy to staging');
    await draftSaved(field);
    // Meanwhile a run of this thread stopped at a question; main holds the thread with it.
    const view = backend.state.agui[agentId]!;
    const threadId = view.thread.threadId;
    let thread = beginRun(view.thread, { runId: 'run-1' });
    for (const event of [
      { type: 'RUN_STARTED', threadId, runId: 'run-1' },
      {
        type: 'RUN_FINISHED',
        threadId,
        runId: 'run-1',
        outcome: { type: 'interrupt', interrupts: [{ id: 'a', reason: 'confirmation', message: 'Restart the service?' }] },
      },
    ]) {
      thread = applyAguiEvent(thread, event);
    }
    backend.state.agui[agentId] = { ...view, thread };

    await reload(backend);
    expect(await screen.findByText('Restart the service?')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Send answers' })).toBeTruthy();
    expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' }).value).toBe('Deploy to staging');
  });

  it('AgentCall: the screen, its conversation and the draft come back; Home after leaving it', async () => {
    const backend = createFakeBackend({
      agentCallAgents: ['agent-ac'],
      agents: [{ id: 'agent-ac', url: 'https://scan.example.com', display: 'scan.example.com', addedAt: '2026-11-30T00:00:00Z' }],
    });
    agentCallMain(backend);
    backend.handle('agentcall.open', () =>
      ok({
        sessionKey: 'session-r',
        agent: backend.state.agentCall,
        updates: [
          { type: 'session.starting', sessionId: 'agentdesk-r', usableModalities: ['photo'], agentRequests: [], focusContext: true },
          { type: 'session.established' },
        ],
      }),
    );
    const user = await reload(backend);
    await user.click(await screen.findByRole('button', { name: 'Open scan.example.com' }));
    const field = await screen.findByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
    await user.type(field, 'What is this?');
    await draftSaved(field);

    act(() => backend.emit('agentcall.update', { sessionKey: 'session-r', updates: [{ type: 'user.text', id: 'u1', turn: 1, text: 'Before the reload' }] }));
    const again = await reload(backend);
    const restored = await screen.findByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
    expect(restored.value).toBe('What is this?');
    // A reload finds the same session in main: its conversation is there, nothing new was opened.
    expect(await within(screen.getByRole('log', { name: 'Conversation' })).findByText('Before the reload')).toBeTruthy();
    expect(backend.callsOf('agentcall.open')).toHaveLength(1);
    await again.click(within(screen.getByRole('navigation', { name: 'AgentDesk' })).getByRole('button', { name: 'AgentDesk' }));
    await screen.findByRole('heading', { level: 1, name: 'Your agents' });
    await reload(backend);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' })).toBeTruthy();
    expect(within(document.body).queryByRole('textbox', { name: 'Message' })).toBeNull();
  });
});

describe('a main that does not answer ui.restore', () => {
  it('still gets a working page, from Home, after a short wait', async () => {
    const backend = createFakeBackend();
    const release = backend.holdNext('ui.restore');
    await reload(backend);
    expect(await screen.findByRole('heading', { level: 1, name: 'Your agents' }, { timeout: 6000 })).toBeTruthy();
    release();
  }, 20_000);
});

describe('CrashBoundary', () => {
  it('a render error shows what happened and a Reload button instead of an empty window', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const onReload = vi.fn();
    function Broken(): never {
      throw new Error('render failed');
    }
    cleanup();
    render(
      <I18nProvider setting="cs">
        <CrashBoundary onReload={onReload}>
          <Broken />
        </CrashBoundary>
      </I18nProvider>,
    );
    expect(screen.getByRole('alert').textContent).toContain('Stránka přestala fungovat');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Načíst znovu' }));
    expect(onReload).toHaveBeenCalledTimes(1);
    quiet.mockRestore();
  });
});
