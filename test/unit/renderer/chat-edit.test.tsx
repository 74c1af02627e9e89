import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { answer, end, messageField, openDemo, push, send, transcript } from './chat-helpers';
import { createFakeBackend } from './fake-api';

/** The message bubble that shows `text` in the transcript. */
function messageWith(text: string): HTMLElement {
  const found = transcript()
    .getAllByText(text)
    .map((element) => element.closest('.message'))
    .filter((element): element is HTMLElement => element instanceof HTMLElement);
  const [message] = found;
  if (!message) throw new Error(`no message shows ${text}`);
  return message;
}

const notice =
  /Editing your last message\. Sending adds it as a new message: this server keeps every message of a chat, so the earlier one and its answer stay above\./;

describe('chat: editing the last message', () => {
  it('Edit is offered on the last typed message only, and not while a run is going', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const first = await send(user, backend, 'First question');
    expect(transcript().queryByRole('button', { name: 'Edit' })).toBeNull();
    await answer(backend, first, 'First answer');
    expect(within(messageWith('First question')).getByRole('button', { name: 'Edit' })).toBeTruthy();

    const second = await send(user, backend, 'Second question');
    expect(transcript().queryByRole('button', { name: 'Edit' })).toBeNull();
    await answer(backend, second, 'Second answer');
    expect(transcript().getAllByRole('button', { name: 'Edit' })).toHaveLength(1);
    expect(within(messageWith('Second question')).getByRole('button', { name: 'Edit' })).toBeTruthy();
  });

  it('Edit puts the text in the composer with an honest notice; sending it adds a new message to the same thread', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Send the offr');
    await answer(backend, runKey, 'I did not understand.');

    await user.click(within(messageWith('Send the offr')).getByRole('button', { name: 'Edit' }));
    expect(messageField().value).toBe('Send the offr');
    expect(document.activeElement).toBe(messageField());
    expect(screen.getByText(notice)).toBeTruthy();
    // The notice is tied to the field, so a screen reader hears it there.
    const describedBy = messageField().getAttribute('aria-describedby') ?? '';
    expect(
      describedBy
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent ?? '')
        .join(' '),
    ).toMatch(notice);

    await user.type(messageField(), '{Backspace}{Backspace}fer{Enter}');
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(2));
    const [original, edited] = backend.callsOf('talkie.send');
    expect(edited?.text).toBe('Send the offer');
    expect(edited?.messageId).not.toBe(original?.messageId);
    expect(edited?.threadId).toBe('t-1');
    // Nothing is pretended away: the earlier exchange is still there, the new message below it.
    expect(transcript().getByText('Send the offr')).toBeTruthy();
    expect(transcript().getByText('I did not understand.')).toBeTruthy();
    expect(transcript().getByText('Send the offer')).toBeTruthy();
    expect(screen.queryByText(notice)).toBeNull();
  });

  it('Stop editing (or Escape in the field) ends the edit and gives back the draft typed before; the screen stays', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Hello');
    await answer(backend, runKey, 'Hi');
    await user.type(messageField(), 'half a thought');

    await user.click(within(messageWith('Hello')).getByRole('button', { name: 'Edit' }));
    expect(messageField().value).toBe('Hello');
    await user.click(screen.getByRole('button', { name: 'Stop editing' }));
    expect(messageField().value).toBe('half a thought');
    expect(screen.queryByText(notice)).toBeNull();
    expect(document.activeElement).toBe(messageField());

    await user.click(within(messageWith('Hello')).getByRole('button', { name: 'Edit' }));
    expect(messageField().value).toBe('Hello');
    await user.keyboard('{Escape}');
    expect(messageField().value).toBe('half a thought');
    expect(screen.queryByText(notice)).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
    expect(backend.callsOf('talkie.send')).toHaveLength(1);
  });

  it('Escape right after Edit, before the next frame shows the notice, still stops the edit', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Hello');
    await answer(backend, runKey, 'Hi');
    await user.type(messageField(), 'half a thought');
    // One task, no frame in between: the state shown still says "not editing".
    act(() => {
      fireEvent.click(within(messageWith('Hello')).getByRole('button', { name: 'Edit' }));
      fireEvent.keyDown(messageField(), { key: 'Escape' });
    });
    await waitFor(() => expect(messageField().value).toBe('half a thought'));
    expect(screen.queryByText(notice)).toBeNull();
    expect(screen.getByRole('heading', { level: 1, name: 'AgentDesk Demo' })).toBeTruthy();
  });

  it('ArrowUp in the empty composer edits the last message; in a composer with text it moves the caret as usual', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Up arrow me');
    await answer(backend, runKey, 'Done');

    await user.click(messageField());
    await user.type(messageField(), 'x');
    await user.keyboard('{ArrowUp}');
    expect(messageField().value).toBe('x');
    expect(screen.queryByText(notice)).toBeNull();

    await user.clear(messageField());
    await user.keyboard('{ArrowUp}');
    expect(messageField().value).toBe('Up arrow me');
    expect(screen.getByText(notice)).toBeTruthy();
    // The hint under the field tells about it.
    expect(screen.getByText('Enter sends; Shift+Enter starts a new line; ↑ in the empty field edits your last message.')).toBeTruthy();
  });

  it('ArrowUp does nothing while a run is going', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    await send(user, backend, 'Still answering');
    await user.click(messageField());
    await user.keyboard('{ArrowUp}');
    expect(messageField().value).toBe('');
    expect(screen.queryByText(notice)).toBeNull();
  });

  it('Edit works from the keyboard: a real button, Enter on it', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Keyboard only');
    await answer(backend, runKey, 'Fine');
    const edit = within(messageWith('Keyboard only')).getByRole('button', { name: 'Edit' });
    expect(edit.tagName).toBe('BUTTON');
    edit.focus();
    await user.keyboard('{Enter}');
    expect(messageField().value).toBe('Keyboard only');
    expect(document.activeElement).toBe(messageField());
  });

  it('a failed reply that may be retried shows Retry next to Edit; one that may not shows only Edit', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Over quota');
    await push(backend, runKey, { type: 'run.started', threadId: 't-1', runId: runKey });
    await end(backend, runKey, { kind: 'error', code: 'quota_exceeded', message: 'The daily quota is used up.', retryable: false }, { threadId: 't-1' });
    expect(transcript().getByText('The daily quota is used up.')).toBeTruthy();
    expect(transcript().queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(within(messageWith('Over quota')).getByRole('button', { name: 'Edit' })).toBeTruthy();

    const next = await send(user, backend, 'talkie-test:error');
    await push(backend, next, { type: 'run.started', threadId: 't-1', runId: next });
    await end(
      backend,
      next,
      { kind: 'error', code: 'upstream_unavailable', message: 'The model provider is unavailable (test).', retryable: true },
      { threadId: 't-1' },
    );
    const retry = transcript().getByRole('button', { name: 'Retry' });
    retry.focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(backend.callsOf('talkie.send')).toHaveLength(3));
    expect(backend.callsOf('talkie.send')[2]?.messageId).toBe(backend.callsOf('talkie.send')[1]?.messageId);
    // The retried reply arrives in place of the error.
    await answer(backend, 'run-3', 'Second time lucky');
    expect(transcript().getByText('Second time lucky')).toBeTruthy();
    expect(transcript().queryByText('The model provider is unavailable (test).')).toBeNull();
  });

  it('says it in Czech', async () => {
    const backend = createFakeBackend();
    const { user } = await openDemo(backend);
    const runKey = await send(user, backend, 'Ahoj');
    await answer(backend, runKey, 'Dobrý den');
    act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
    await user.click(await screen.findByRole('button', { name: 'Upravit' }));
    expect(screen.getByRole<HTMLTextAreaElement>('textbox', { name: 'Zpráva' }).value).toBe('Ahoj');
    expect(screen.getByText(/Odesláním ji přidáte jako novou zprávu/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Zrušit úpravu' })).toBeTruthy();
  });
});
