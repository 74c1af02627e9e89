import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createRef } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { builtInAgentCallDemoId } from '../../../src/shared/ipc/contract';
import { ok } from '../../../src/shared/base/errors';
import type { SpeechStatus } from '../../../src/shared/speech/ipc-schemas';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';
import { AgentScreen } from '../../../src/renderer/screens/AgentScreen';
import type * as VadModule from '../../../src/renderer/voice/vad';
import type { Vad } from '../../../src/renderer/voice/vad';
import { agentCallMain } from './agentcall-main';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { installFakeWebRtc, uninstallFakeWebRtc } from './fake-webrtc';

/**
 * Talk by voice (AgentCall client-owned voice) and the recognizer main has: with none, one sentence says
 * what to import and where sherpa-onnx publishes models, no microphone opens, and the keyboard (the
 * message field) has the focus; with pocketsphinx's basic English one, the bar says it is basic.
 */

vi.mock('../../../src/renderer/voice/vad', async (original) => ({
  ...(await original<typeof VadModule>()),
  startVad: async () => ({ pause: async () => undefined, start: async () => undefined, level: () => 0, destroy: async () => undefined }) satisfies Vad,
}));

beforeEach(() => {
  vi.stubGlobal('requestAnimationFrame', (callback: FrameRequestCallback) => {
    callback(performance.now());
    return 0;
  });
  installFakeWebRtc();
});
afterEach(() => {
  cleanup();
  uninstallFakeWebRtc();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

const none: SpeechStatus['recognition'] = {
  available: false,
  engine: 'none',
  reason:
    'No speech model is imported: import a sherpa-onnx speech recognition model (published at https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models) in Settings → Speech, or type instead.',
  folderChooser: false,
};
const basic: SpeechStatus['recognition'] = {
  available: true,
  engine: 'pocketsphinx',
  model: { name: 'pocketsphinx-en-us (basic English)', languages: ['en'] },
  basic: true,
  folderChooser: false,
};

async function openScreen(recognition: SpeechStatus['recognition']): Promise<{ backend: FakeBackend; user: ReturnType<typeof userEvent.setup> }> {
  const backend = createFakeBackend();
  agentCallMain(backend);
  backend.handle('agentcall.open', () =>
    ok({
      sessionKey: 'session-1',
      agent: backend.state.agentCall,
      updates: [
        { type: 'session.starting', sessionId: 'agentdesk-1', usableModalities: ['nfc', 'photo'], agentRequests: ['nfc', 'photo'], focusContext: true },
      ],
    }),
  );
  backend.handle('speech.status', () => ok({ synthesis: { available: true, engine: 'espeak-ng' }, recognition }));
  const user = userEvent.setup();
  render(
    <I18nProvider setting="en">
      <AgentScreen
        api={backend.api}
        headingRef={createRef()}
        agentId={builtInAgentCallDemoId}
        label="Demo objects"
        protocol="agentcall"
        onBack={() => undefined}
      />
    </I18nProvider>,
  );
  await screen.findByRole('heading', { level: 1, name: backend.state.agentCall.name });
  act(() => backend.emit('agentcall.update', { sessionKey: 'session-1', updates: [{ type: 'session.established' }] }));
  return { backend, user };
}

describe('Talk by voice and the recognizer in use', () => {
  it('with no recognizer: one sentence says what to import and where, no microphone opens, and the message field has the focus', async () => {
    const { backend, user } = await openScreen(none);
    await user.click(await screen.findByRole('button', { name: 'Talk by voice' }));
    const voice = screen.getByRole('group', { name: 'Voice' });
    const said = await within(voice).findByRole('alert');
    expect(said.textContent).toBe(
      'Speech cannot be recognised here yet: import a speech model from https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models in Settings → Speech, and type your message meanwhile.',
    );
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Message' })));
    expect(backend.callsOf('media.arm')).toEqual([]);
    expect(navigator.mediaDevices.getUserMedia).not.toHaveBeenCalled();
    // Typing goes on where the keyboard already is.
    await user.keyboard('hello');
    expect((screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('hello');
    // Asking again says it again, and the focus goes back to the message field.
    await user.click(screen.getByRole('button', { name: 'Talk by voice' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('textbox', { name: 'Message' })));
    expect(within(voice).getAllByRole('alert')).toHaveLength(1);
  });

  it('with the basic English recognizer: listening starts and the bar says it is basic', async () => {
    const { user } = await openScreen(basic);
    await user.click(await screen.findByRole('button', { name: 'Talk by voice' }));
    const voice = screen.getByRole('group', { name: 'Voice' });
    expect(
      await within(voice).findByText(
        'Basic English recognition (pocketsphinx): it often mishears, so check what it heard; a speech model imported in Settings → Speech hears far better.',
      ),
    ).toBeTruthy();
    expect(within(voice).queryByRole('alert')).toBeNull();
  });
});
