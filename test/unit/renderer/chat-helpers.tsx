import { act, screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, expect, vi } from 'vitest';
import { loadAgentScreen } from '../../../src/renderer/screens/LazyAgentScreen';
import { builtInDemoAgentId, type EventPayload } from '../../../src/shared/ipc/contract';
import type { Action } from '../../../src/shared/talkie/content';
import type { RunUpdate } from '../../../src/shared/talkie/conversation';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

// The conversation store renders main's updates once per animation frame. Here frames run at once, so a
// test can assert right after main's update arrived (the batching itself is measured by bench/renderer-stream.ts).
// The agent screens' modules load (and vitest transforms them) once, before the first test's clock starts.
beforeAll(async () => {
  await loadAgentScreen();
}, 60_000);
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

/** The one conversation log of the agent screen. */
export function transcript() {
  return within(screen.getByRole('log', { name: 'Conversation' }));
}

/** Main's changes reach the page one tick later (the conversation service sends one update per tick). */
export async function settle(): Promise<void> {
  await act(async () => new Promise((resolve) => setTimeout(resolve, 0)));
}

/** Types a message, presses Send and waits until main sent it and the agent's answer is under way; returns the run's key. */
export async function send(user: UserEvent, backend: FakeBackend, text: string): Promise<string> {
  const before = backend.callsOf('talkie.send').length;
  await user.type(messageField(), text);
  await user.click(sendButton());
  await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(before + 1));
  await waitFor(() => expect(screen.getByText('Agent is answering…')).toBeTruthy());
  await settle();
  return `run-${before + 1}`;
}

/** The run's updates, as TalkieService emits them; resolves once the page shows what main made of them. */
export async function push(backend: FakeBackend, runKey: string, ...updates: RunUpdate[]) {
  await act(async () => {
    for (const update of updates) backend.emit('talkie.update', { agentId: builtInDemoAgentId, runKey, update });
  });
  await settle();
}

export async function end(
  backend: FakeBackend,
  runKey: string,
  outcome: EventPayload<'talkie.runEnded'>['outcome'],
  extra: Partial<EventPayload<'talkie.runEnded'>> = {},
) {
  await act(async () => backend.emit('talkie.runEnded', { agentId: builtInDemoAgentId, runKey, outcome, ...extra }));
  await settle();
}

/** Home, from the sidebar: the agent's screen is left (what it had going in the page ends). */
export async function goHome(user: UserEvent) {
  await user.click(within(screen.getByRole('navigation', { name: 'AgentDesk' })).getByRole('button', { name: 'AgentDesk' }));
  await screen.findByRole('heading', { level: 1, name: 'Your agents' });
}

/** The agent's details (the header's Details button): account, usage, manifest notes, sign-out, web pages. */
export async function openDetails(user: UserEvent) {
  await user.click(screen.getByRole('button', { name: 'Details' }));
  return within(await screen.findByRole('dialog'));
}

/** A full short answer: started, one text message in two deltas, finished. */
export async function answer(backend: FakeBackend, runKey: string, text: string, threadId = 't-1') {
  const half = Math.ceil(text.length / 2);
  await push(
    backend,
    runKey,
    { type: 'run.started', threadId, runId: runKey },
    { type: 'text.start', messageId: `a-${runKey}` },
    { type: 'text.delta', messageId: `a-${runKey}`, delta: text.slice(0, half) },
    { type: 'text.delta', messageId: `a-${runKey}`, delta: text.slice(half) },
    { type: 'text.end', messageId: `a-${runKey}` },
    { type: 'run.finished' },
  );
  await end(backend, runKey, { kind: 'finished' }, { threadId });
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
