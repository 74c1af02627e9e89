import { act, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, expect, vi } from 'vitest';
import { builtInDemoAgentId, type EventPayload } from '../../../src/shared/ipc/contract';
import type { Action } from '../../../src/shared/talkie/content';
import type { RunUpdate } from '../../../src/shared/talkie/conversation';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

// useChat renders streamed updates once per animation frame. Here frames run at once, so a test
// can assert right after it pushes an update (the batching itself is measured by bench/renderer-stream.ts).
beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
});
afterEach(() => {
  vi.unstubAllGlobals();
});

/** Home → "Chat with the demo assistant" → the chat of the built-in demo, ready for typing. */
export async function openDemo(backend: FakeBackend = createFakeBackend(), options: { closed?: Promise<number> } = {}) {
  const app = await renderApp({ backend, ...options });
  await app.user.click(screen.getByRole('button', { name: 'Chat with the demo assistant' }));
  await screen.findByRole('heading', { level: 1, name: 'AgentDesk Demo' });
  await screen.findByRole('textbox', { name: 'Message' });
  return app;
}

export function messageField(): HTMLTextAreaElement {
  return screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Message' });
}

export function sendButton(): HTMLButtonElement {
  return screen.getByRole<HTMLButtonElement>('button', { name: 'Send' });
}

export function transcript() {
  return within(screen.getByRole('region', { name: 'Messages' }));
}

/** Types a message, presses Send and waits until main got it; returns the run's key. */
export async function send(user: UserEvent, backend: FakeBackend, text: string): Promise<string> {
  const before = backend.callsOf('talkie.send').length;
  await user.type(messageField(), text);
  await user.click(sendButton());
  await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(before + 1));
  const runKey = `run-${before + 1}`;
  // The Cancel button becomes usable once the send answer (and its runKey) arrived.
  await waitFor(() => expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Cancel' }).disabled).toBe(false));
  return runKey;
}

export function push(backend: FakeBackend, runKey: string, ...updates: RunUpdate[]) {
  act(() => {
    for (const update of updates) backend.emit('talkie.update', { agentId: builtInDemoAgentId, runKey, update });
  });
}

export function end(backend: FakeBackend, runKey: string, outcome: EventPayload<'talkie.runEnded'>['outcome'], extra: Partial<EventPayload<'talkie.runEnded'>> = {}) {
  act(() => backend.emit('talkie.runEnded', { agentId: builtInDemoAgentId, runKey, outcome, ...extra }));
}

/** A full short answer: started, one text message in two deltas, finished. */
export function answer(backend: FakeBackend, runKey: string, text: string, threadId = 't-1') {
  const half = Math.ceil(text.length / 2);
  push(
    backend,
    runKey,
    { type: 'run.started', threadId, runId: runKey },
    { type: 'text.start', messageId: `a-${runKey}` },
    { type: 'text.delta', messageId: `a-${runKey}`, delta: text.slice(0, half) },
    { type: 'text.delta', messageId: `a-${runKey}`, delta: text.slice(half) },
    { type: 'text.end', messageId: `a-${runKey}` },
    { type: 'run.finished' },
  );
  end(backend, runKey, { kind: 'finished' }, { threadId });
}

export function pendingAction(overrides: Partial<Action> = {}): Action {
  const now = Date.now();
  return {
    id: 'a_77',
    threadId: 't-1',
    summary: 'Send offer N-2026-014 to novak@alfa.cz',
    riskLevel: 'medium',
    status: 'pending',
    paramsHash: 'sha256:4f1c',
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + 10 * 60_000).toISOString(),
    buttons: true,
    voice: false,
    ...overrides,
  };
}
