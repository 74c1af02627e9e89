import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SpeechModelInfo, SpeechStatus } from '../../../src/shared/speech/ipc-schemas';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

/** Settings → Speech (#17): the model in use and the imported Piper voice, Import (typed path in the web shell, main's chooser in Electron), progress, Remove, errors, synthesis, one import at a time. */
const czechModel: SpeechModelInfo = {
  name: 'sherpa-onnx-streaming-zipformer-cs-2024',
  languages: ['cs', 'en'],
  kind: 'transducer',
  importedAt: '2026-12-02T15:00:00.000Z',
};

const amyVoice: SpeechModelInfo = { name: 'vits-piper-en_US-amy-low', languages: ['en-US'], kind: 'voice', importedAt: '2026-12-03T08:00:00.000Z' };

/**
 * A fake main whose speech.status follows the imports and removals it answered: `purpose` 'voice' fills
 * the voice slot (then sherpa-onnx speaks the voice's languages), none the recognizer's.
 */
function speechBackend(options: { chooser?: boolean; espeak?: boolean; basic?: boolean } = {}): FakeBackend & {
  model: { current: SpeechModelInfo | undefined };
  voice: { current: SpeechModelInfo | undefined };
} {
  const backend = createFakeBackend();
  const model = { current: undefined as SpeechModelInfo | undefined };
  const voice = { current: undefined as SpeechModelInfo | undefined };
  const status = (): SpeechStatus => ({
    synthesis: {
      available: options.espeak !== false || voice.current !== undefined,
      engine: voice.current ? 'sherpa-onnx' : 'espeak-ng',
      ...(options.espeak === false ? { missing: 'sudo apt-get install espeak-ng' } : {}),
      ...(voice.current ? { voice: { name: voice.current.name, languages: voice.current.languages }, imported: voice.current } : {}),
    },
    recognition: model.current
      ? {
          available: true,
          engine: 'sherpa-onnx',
          model: { name: model.current.name, languages: model.current.languages },
          imported: model.current,
          folderChooser: options.chooser ?? false,
        }
      : options.basic
        ? {
            available: true,
            engine: 'pocketsphinx',
            model: { name: 'pocketsphinx-en-us (basic English)', languages: ['en'] },
            basic: true,
            folderChooser: options.chooser ?? false,
          }
        : { available: false, engine: 'none', reason: 'No speech model is imported.', folderChooser: options.chooser ?? false },
  });
  backend.handle('speech.status', () => ({ ok: true, value: status() }));
  backend.handle('speech.importModel', (request) => {
    if (request.purpose === 'voice') {
      voice.current = amyVoice;
      return { ok: true, value: { model: amyVoice } };
    }
    model.current = czechModel;
    return { ok: true, value: { model: czechModel } };
  });
  backend.handle('speech.removeModel', (request) => {
    if (request.purpose === 'voice') voice.current = undefined;
    else model.current = undefined;
    return { ok: true, value: {} };
  });
  return Object.assign(backend, { model, voice });
}

async function openSpeech(backend: FakeBackend) {
  const { user } = await renderApp({ backend });
  await user.click(screen.getByRole('button', { name: 'Settings' }));
  const group = await screen.findByRole('group', { name: 'Speech' });
  return { user, group };
}

describe('Settings → Speech', () => {
  it('imports a typed folder in the web shell with progress, shows the model and its languages, and removes it', async () => {
    const backend = speechBackend();
    const { user, group } = await openSpeech(backend);
    expect(within(group).getByText('No speech model is imported yet.')).toBeTruthy();
    expect(within(group).getByText('Answers can be read aloud (espeak-ng).')).toBeTruthy();
    const importButton = within(group).getByRole<HTMLButtonElement>('button', { name: 'Import' });
    expect(importButton.disabled).toBe(true);

    await user.type(within(group).getByRole('textbox', { name: 'Model folder or archive' }), '/models/sherpa-onnx-streaming-zipformer-cs-2024');
    const release = backend.holdNext('speech.importModel');
    await user.click(importButton);
    act(() => backend.emit('speech.importProgress', { phase: 'copying', bytesDone: 30 * 1024 * 1024, bytesTotal: 120 * 1024 * 1024, file: 'encoder.onnx' }));
    const bar = await within(group).findByRole('progressbar', { name: 'Copying the model: 30 of 120 MB' });
    expect(bar.getAttribute('value')).toBe(String(30 * 1024 * 1024));
    act(() => backend.emit('speech.importProgress', { phase: 'verifying', bytesDone: 120 * 1024 * 1024, bytesTotal: 120 * 1024 * 1024 }));
    expect(await within(group).findByRole('progressbar', { name: 'Checking that the model loads…' })).toBeTruthy();
    release();

    expect(await within(group).findByText('Model imported.')).toBeTruthy();
    expect(backend.callsOf('speech.importModel')).toEqual([{ path: '/models/sherpa-onnx-streaming-zipformer-cs-2024' }]);
    expect(within(group).queryByRole('progressbar')).toBeNull();
    expect(within(group).getByText('Model: sherpa-onnx-streaming-zipformer-cs-2024 (streaming transducer)')).toBeTruthy();
    expect(within(group).getByText('Languages: Czech, English')).toBeTruthy();

    await user.click(within(group).getByRole('button', { name: 'Remove model' }));
    expect(await within(group).findByText('Model removed.')).toBeTruthy();
    expect(within(group).getByText('No speech model is imported yet.')).toBeTruthy();
    expect(within(group).queryByRole('button', { name: 'Remove model' })).toBeNull();
  });

  it('says a wrong folder in words with main’s reason behind Details, and the refusal under an admin PIN', async () => {
    const backend = speechBackend();
    const { user, group } = await openSpeech(backend);
    await user.type(within(group).getByRole('textbox', { name: 'Model folder or archive' }), '/tmp/photos');
    backend.failNext('speech.importModel', {
      code: 'speech_model_invalid',
      message: 'This folder holds no speech model AgentDesk can load: an encoder .onnx file missing.',
    });
    await user.keyboard('{Enter}');
    const status = await within(group).findByText('This folder or archive holds no speech model AgentDesk can use.');
    await user.click(within(status).getByRole('button', { name: 'Details' }));
    expect(within(group).getByText('This folder holds no speech model AgentDesk can load: an encoder .onnx file missing.')).toBeTruthy();
    expect(backend.model.current).toBeUndefined();

    backend.failNext('speech.importModel', { code: 'not_allowed', message: "Settings are behind the administrator's PIN (device policy)." });
    await user.click(within(group).getByRole('button', { name: 'Import' }));
    expect(await within(group).findByText("Settings are behind the administrator's PIN (device policy).")).toBeTruthy();
  });

  it('in Electron asks main to open its folder chooser (no path field); a cancelled chooser says nothing; espeak-ng missing gives the command', async () => {
    const backend = speechBackend({ chooser: true, espeak: false });
    backend.handle('speech.importModel', () => ({ ok: true, value: {} }));
    const { user, group } = await openSpeech(backend);
    expect(within(group).queryByRole('textbox')).toBeNull();
    expect(within(group).getByText('sudo apt-get install espeak-ng')).toBeTruthy();
    await user.click(within(group).getByRole('button', { name: 'Import folder…' }));
    await waitFor(() => expect(backend.callsOf('speech.importModel')).toEqual([{}]));
    await waitFor(() => expect(within(group).getByRole<HTMLButtonElement>('button', { name: 'Import folder…' }).disabled).toBe(false));
    // Neither part's import status (recognition, voice) nor the barge-in choice's (the other status in the group) says anything.
    expect(
      within(group)
        .getAllByRole('status')
        .map((status) => status.textContent),
    ).toEqual(['', '', '']);
  });

  it("in Electron imports an archive through main's chooser too, and shows the unpacking before the copy", async () => {
    const backend = speechBackend({ chooser: true });
    const { user, group } = await openSpeech(backend);
    const release = backend.holdNext('speech.importModel');
    await user.click(within(group).getByRole('button', { name: 'Import archive…' }));
    act(() => backend.emit('speech.importProgress', { phase: 'unpacking', bytesDone: 12 * 1024 * 1024, bytesTotal: 48 * 1024 * 1024 }));
    const bar = await within(group).findByRole('progressbar', { name: 'Unpacking the archive: 12 of 48 MB' });
    expect([bar.getAttribute('value'), bar.getAttribute('max')]).toEqual([String(12 * 1024 * 1024), String(48 * 1024 * 1024)]);
    expect(within(group).getByRole<HTMLButtonElement>('button', { name: 'Import folder…' }).disabled).toBe(true);
    act(() => backend.emit('speech.importProgress', { phase: 'copying', bytesDone: 0, bytesTotal: 50 * 1024 * 1024 }));
    expect(await within(group).findByRole('progressbar', { name: 'Copying the model: 0 of 50 MB' })).toBeTruthy();
    release();
    expect(await within(group).findByText('Model imported.')).toBeTruthy();
    expect(backend.callsOf('speech.importModel')).toEqual([{ choose: 'archive' }]);
  });

  it("says when the imported model cannot be used now, with main's reason behind Details", async () => {
    const backend = speechBackend();
    const reason = 'The speech model could not be loaded: its file encoder.onnx changed since it was imported; import the model again.';
    backend.handle('speech.status', () => ({
      ok: true,
      value: {
        synthesis: { available: true, engine: 'espeak-ng' },
        recognition: {
          available: false,
          engine: 'sherpa-onnx',
          model: { name: czechModel.name, languages: czechModel.languages },
          reason,
          imported: czechModel,
          folderChooser: false,
        },
      },
    }));
    const { user, group } = await openSpeech(backend);
    const line = within(group).getByText('The imported model cannot be used now; import it again.');
    await user.click(within(line).getByRole('button', { name: 'Details' }));
    expect(within(group).getByText(reason)).toBeTruthy();
    expect(within(group).getByRole('button', { name: 'Remove model' })).toBeTruthy();
  });

  it('in Czech', async () => {
    const backend = speechBackend();
    backend.model.current = czechModel;
    await openSpeech(backend);
    act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
    const group = await screen.findByRole('group', { name: 'Řeč' });
    expect(within(group).getByText('Jazyky: čeština, angličtina')).toBeTruthy();
    expect(within(group).getByRole('button', { name: 'Odebrat model' })).toBeTruthy();
  });
});

const modelsUrl = 'https://github.com/k2-fsa/sherpa-onnx/releases/tag/asr-models';

describe('Settings → Speech: the recognizer in use', () => {
  it('none: says so, and in one sentence what to import and where sherpa-onnx publishes models', async () => {
    const { group } = await openSpeech(speechBackend());
    const { recognition } = parts(group);
    expect(within(recognition).getByText('In use: nothing, so speech cannot be recognised')).toBeTruthy();
    expect(
      within(recognition).getByText(
        `To talk by voice, import a speech model from sherpa-onnx’s releases at ${modelsUrl}: for English a streaming zipformer such as sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2, for other languages a Whisper model.`,
      ),
    ).toBeTruthy();
    expect(within(recognition).queryByText(/^Basic English recognition/)).toBeNull();
  });

  it('basic English (pocketsphinx) while no model is imported: says it is basic; an imported model takes over', async () => {
    const backend = speechBackend({ basic: true });
    const { user, group } = await openSpeech(backend);
    const { recognition } = parts(group);
    expect(within(recognition).getByText('In use: basic English (pocketsphinx)')).toBeTruthy();
    expect(within(recognition).getByText('No speech model is imported yet.')).toBeTruthy();
    expect(
      within(recognition).getByText(
        'Basic English recognition needs no model, but it often mishears (about half of the words right in tests with a synthetic voice) and knows no other language; an imported model hears far better.',
      ),
    ).toBeTruthy();
    expect(within(recognition).queryByText(/^To talk by voice/)).toBeNull();

    await user.type(within(recognition).getByRole('textbox', { name: 'Model folder or archive' }), '/models/cs{Enter}');
    expect(await within(recognition).findByText('Model imported.')).toBeTruthy();
    expect(within(recognition).getByText('In use: the imported model')).toBeTruthy();
    expect(within(recognition).queryByText(/^Basic English recognition/)).toBeNull();
  });

  it('the demo’s commands (AGENTDESK_SPEECH_RECOGNIZER, a test setting) are named as such', async () => {
    const backend = speechBackend();
    backend.handle('speech.status', () => ({
      ok: true,
      value: {
        synthesis: { available: true, engine: 'espeak-ng' },
        recognition: {
          available: true,
          engine: 'pocketsphinx',
          model: { name: "pocketsphinx (the demo's English commands)", languages: ['en'] },
          folderChooser: false,
        },
      },
    }));
    const { group } = await openSpeech(backend);
    expect(within(parts(group).recognition).getByText('In use: pocketsphinx with the demo’s English commands only (a test setting)')).toBeTruthy();
  });

  it('in Czech: basic, and none', async () => {
    const backend = speechBackend({ basic: true });
    await openSpeech(backend);
    act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
    let recognition = part(await screen.findByRole('group', { name: 'Řeč' }), 'Rozpoznávání řeči');
    expect(within(recognition).getByText('Používá se: základní angličtina (pocketsphinx)')).toBeTruthy();
    expect(
      within(recognition).getByText(
        'Základní rozpoznávání angličtiny nepotřebuje model, ale často se splete (v testech se syntetickým hlasem rozpoznalo správně asi polovinu slov) a jiný jazyk nezná; importovaný model slyší mnohem lépe.',
      ),
    ).toBeTruthy();

    cleanup();
    const without = speechBackend();
    await openSpeech(without);
    act(() => without.emit('settings.changed', { ...without.state.settings, language: 'cs' }));
    recognition = part(await screen.findByRole('group', { name: 'Řeč' }), 'Rozpoznávání řeči');
    expect(within(recognition).getByText('Používá se: nic, takže řeč nelze rozpoznat')).toBeTruthy();
    expect(
      within(recognition).getByText(
        `Chcete-li mluvit hlasem, importujte model řeči z vydání sherpa-onnx na ${modelsUrl}: pro angličtinu streamovací zipformer, například sherpa-onnx-streaming-zipformer-en-2023-06-26.tar.bz2, pro jiné jazyky model Whisper.`,
      ),
    ).toBeTruthy();
  });
});

/** One part of Settings → Speech: what its heading (an h2, like the recognizer's) heads. */
function part(group: HTMLElement, heading: string): HTMLElement {
  const found = within(group).getByRole('heading', { level: 2, name: heading }).closest('.speech-part');
  if (!(found instanceof HTMLElement)) throw new Error(`no part under ${heading}`);
  return found;
}

/** The two parts of Settings → Speech. */
function parts(group: HTMLElement) {
  return { recognition: part(group, 'Speech recognition'), synthesis: part(group, 'Speech synthesis') };
}

const button = (part: HTMLElement, name: string) => within(part).getByRole<HTMLButtonElement>('button', { name });

describe('Settings → Speech: the imported Piper voice', () => {
  it('without a voice, espeak-ng speaks and the hint says where a Piper voice comes from', async () => {
    const { group } = await openSpeech(speechBackend());
    const { recognition, synthesis } = parts(group);
    expect(within(synthesis).getByText('Answers can be read aloud (espeak-ng).')).toBeTruthy();
    expect(within(synthesis).getByText(/vits-piper-en_US-amy-low\.tar\.bz2 with its \.onnx file, tokens\.txt and espeak-ng-data/)).toBeTruthy();
    expect(within(synthesis).queryByRole('button', { name: 'Remove voice' })).toBeNull();
    // The recognizer's words stay in its own part.
    expect(within(synthesis).queryByText('No speech model is imported yet.')).toBeNull();
    expect(within(recognition).getByText('No speech model is imported yet.')).toBeTruthy();
  });

  it('imports a voice by typed path with purpose voice, its progress in the voice part only, then shows it with its languages, and removes it with purpose voice', async () => {
    const backend = speechBackend();
    const { user, group } = await openSpeech(backend);
    const { recognition, synthesis } = parts(group);
    expect(button(synthesis, 'Import voice').disabled).toBe(true);

    await user.type(within(synthesis).getByRole('textbox', { name: 'Voice folder or archive' }), '/voices/vits-piper-en_US-amy-low.tar.bz2');
    const release = backend.holdNext('speech.importModel');
    await user.click(button(synthesis, 'Import voice'));
    act(() => backend.emit('speech.importProgress', { phase: 'unpacking', bytesDone: 10 * 1024 * 1024, bytesTotal: 64 * 1024 * 1024 }));
    expect(await within(synthesis).findByRole('progressbar', { name: 'Unpacking the archive: 10 of 64 MB' })).toBeTruthy();
    act(() =>
      backend.emit('speech.importProgress', { phase: 'copying', bytesDone: 20 * 1024 * 1024, bytesTotal: 60 * 1024 * 1024, file: 'en_US-amy-low.onnx' }),
    );
    const bar = await within(synthesis).findByRole('progressbar', { name: 'Copying the voice: 20 of 60 MB' });
    expect([bar.getAttribute('value'), bar.getAttribute('max')]).toEqual([String(20 * 1024 * 1024), String(60 * 1024 * 1024)]);
    act(() => backend.emit('speech.importProgress', { phase: 'verifying', bytesDone: 60 * 1024 * 1024, bytesTotal: 60 * 1024 * 1024 }));
    expect(await within(synthesis).findByRole('progressbar', { name: 'Checking that the voice loads…' })).toBeTruthy();
    expect(within(recognition).queryByRole('progressbar')).toBeNull();
    release();

    expect(await within(synthesis).findByText('Voice imported.')).toBeTruthy();
    expect(backend.callsOf('speech.importModel')).toStrictEqual([{ path: '/voices/vits-piper-en_US-amy-low.tar.bz2', purpose: 'voice' }]);
    expect(within(group).queryByRole('progressbar')).toBeNull();
    expect(within(group).queryByText('Model imported.')).toBeNull();
    expect(within(recognition).getByText('No speech model is imported yet.')).toBeTruthy();
    expect((within(synthesis).getByRole('textbox', { name: 'Voice folder or archive' }) as HTMLInputElement).value).toBe('');
    expect(within(synthesis).getByText('Voice: vits-piper-en_US-amy-low')).toBeTruthy();
    expect(within(synthesis).getByText('Languages: American English')).toBeTruthy();
    expect(within(synthesis).getByText('Answers in other languages are read aloud by espeak-ng.')).toBeTruthy();
    expect(within(synthesis).queryByText('Answers can be read aloud (espeak-ng).')).toBeNull();
    expect(within(synthesis).queryByText(/vits-piper-en_US-amy-low\.tar\.bz2 with its/)).toBeNull();

    await user.click(button(synthesis, 'Remove voice'));
    expect(await within(synthesis).findByText('Voice removed.')).toBeTruthy();
    expect(backend.callsOf('speech.removeModel')).toStrictEqual([{ purpose: 'voice' }]);
    expect(within(synthesis).queryByText('Voice: vits-piper-en_US-amy-low')).toBeNull();
    expect(within(synthesis).getByText('Answers can be read aloud (espeak-ng).')).toBeTruthy();
    expect(within(synthesis).queryByRole('button', { name: 'Remove voice' })).toBeNull();
  });

  it('the recognizer still imports and removes without a purpose, its outcome in its own part', async () => {
    const backend = speechBackend();
    const { user, group } = await openSpeech(backend);
    const { recognition, synthesis } = parts(group);
    await user.type(within(recognition).getByRole('textbox', { name: 'Model folder or archive' }), '/models/cs');
    const release = backend.holdNext('speech.importModel');
    await user.click(button(recognition, 'Import'));
    act(() => backend.emit('speech.importProgress', { phase: 'copying', bytesDone: 0, bytesTotal: 10 * 1024 * 1024 }));
    expect(await within(recognition).findByRole('progressbar', { name: 'Copying the model: 0 of 10 MB' })).toBeTruthy();
    expect(within(synthesis).queryByRole('progressbar')).toBeNull();
    release();
    expect(await within(recognition).findByText('Model imported.')).toBeTruthy();
    expect(within(synthesis).getByRole('status').textContent).toBe('');
    expect(backend.callsOf('speech.importModel')).toStrictEqual([{ path: '/models/cs' }]);
    expect(backend.voice.current).toBeUndefined();

    await user.click(button(recognition, 'Remove model'));
    expect(await within(recognition).findByText('Model removed.')).toBeTruthy();
    expect(backend.callsOf('speech.removeModel')).toStrictEqual([{}]);
  });

  it("one import at a time: while either part imports, both parts' buttons and path fields wait", async () => {
    const backend = speechBackend();
    backend.model.current = czechModel;
    backend.voice.current = amyVoice;
    const { user, group } = await openSpeech(backend);
    const { recognition, synthesis } = parts(group);
    await user.type(within(recognition).getByRole('textbox', { name: 'Model folder or archive' }), '/models/cs');
    await user.type(within(synthesis).getByRole('textbox', { name: 'Voice folder or archive' }), '/voices/amy');
    const controls = () => [
      button(recognition, 'Import'),
      button(recognition, 'Remove model'),
      within(recognition).getByRole<HTMLInputElement>('textbox', { name: 'Model folder or archive' }),
      button(synthesis, 'Import voice'),
      button(synthesis, 'Remove voice'),
      within(synthesis).getByRole<HTMLInputElement>('textbox', { name: 'Voice folder or archive' }),
    ];
    expect(controls().map((control) => control.disabled)).toEqual([false, false, false, false, false, false]);

    let release = backend.holdNext('speech.importModel');
    await user.click(button(synthesis, 'Import voice'));
    await waitFor(() => expect(controls().map((control) => control.disabled)).toEqual([true, true, true, true, true, true]));
    expect(group.getAttribute('aria-busy')).toBe('true');
    release();
    expect(await within(synthesis).findByText('Voice imported.')).toBeTruthy();
    await waitFor(() => expect(button(recognition, 'Import').disabled).toBe(false));
    expect(group.getAttribute('aria-busy')).toBeNull();

    release = backend.holdNext('speech.importModel');
    await user.click(button(recognition, 'Import'));
    await waitFor(() => expect(button(synthesis, 'Import voice').disabled).toBe(true));
    expect(button(synthesis, 'Remove voice').disabled).toBe(true);
    // The voice part's last outcome stays its own while the recognizer imports.
    expect(within(synthesis).getByText('Voice imported.')).toBeTruthy();
    release();
    expect(await within(recognition).findByText('Model imported.')).toBeTruthy();
    expect(backend.callsOf('speech.importModel')).toStrictEqual([{ path: '/voices/amy', purpose: 'voice' }, { path: '/models/cs' }]);
  });

  it("says when the imported voice cannot speak, with main's reason behind Details; espeak-ng speaks meanwhile", async () => {
    const backend = speechBackend();
    const reason = 'The voice could not be loaded: its file en_US-amy-low.onnx changed since it was imported; import the voice again.';
    backend.handle('speech.status', () => ({
      ok: true,
      value: {
        synthesis: { available: true, engine: 'espeak-ng', imported: amyVoice, reason },
        recognition: { available: false, engine: 'none', reason: 'No speech model is imported.', folderChooser: false },
      },
    }));
    const { user, group } = await openSpeech(backend);
    const { recognition, synthesis } = parts(group);
    expect(within(synthesis).getByText('Voice: vits-piper-en_US-amy-low')).toBeTruthy();
    const line = within(synthesis).getByText('The imported voice cannot be used now; import it again.');
    expect(line.className).toBe('error-text');
    await user.click(within(line).getByRole('button', { name: 'Details' }));
    expect(within(synthesis).getByText(reason)).toBeTruthy();
    expect(within(synthesis).getByText('Answers can be read aloud (espeak-ng).')).toBeTruthy();
    expect(within(synthesis).queryByText('Answers in other languages are read aloud by espeak-ng.')).toBeNull();
    expect(button(synthesis, 'Remove voice')).toBeTruthy();
    expect(within(recognition).queryByText('The imported model cannot be used now; import it again.')).toBeNull();
  });

  it('a working voice needs no error line', async () => {
    const backend = speechBackend();
    backend.voice.current = amyVoice;
    const { group } = await openSpeech(backend);
    expect(within(parts(group).synthesis).queryByText('The imported voice cannot be used now; import it again.')).toBeNull();
  });

  it('espeak-ng missing: with a voice, the other languages cannot be read aloud; without one, nothing can; the command either way', async () => {
    const backend = speechBackend({ espeak: false });
    backend.voice.current = amyVoice;
    const { user, group } = await openSpeech(backend);
    const { synthesis } = parts(group);
    const withVoice = within(synthesis).getByText(/^espeak-ng is not installed, so answers in other languages cannot be read aloud\. Install it with:/);
    expect(within(withVoice).getByText('sudo apt-get install espeak-ng').tagName).toBe('CODE');
    expect(within(synthesis).queryByText('Answers in other languages are read aloud by espeak-ng.')).toBeNull();

    await user.click(button(synthesis, 'Remove voice'));
    expect(await within(synthesis).findByText('Voice removed.')).toBeTruthy();
    const withoutVoice = within(synthesis).getByText(/^espeak-ng is not installed, so answers cannot be read aloud\. Install it with:/);
    expect(within(withoutVoice).getByText('sudo apt-get install espeak-ng')).toBeTruthy();
  });

  it("a folder without a Piper voice is refused in the voice part's words, with main's reason behind Details", async () => {
    const backend = speechBackend();
    const { user, group } = await openSpeech(backend);
    const { recognition, synthesis } = parts(group);
    await user.type(within(synthesis).getByRole('textbox', { name: 'Voice folder or archive' }), '/models/sherpa-onnx-streaming-zipformer-cs-2024');
    const main = 'This folder holds a speech recognition model, not a Piper voice: import it under Speech recognition.';
    backend.failNext('speech.importModel', { code: 'speech_model_invalid', message: main });
    await user.keyboard('{Enter}');
    const status = await within(synthesis).findByText('This folder or archive holds no Piper voice AgentDesk can use.');
    await user.click(within(status).getByRole('button', { name: 'Details' }));
    expect(within(synthesis).getByText(main)).toBeTruthy();
    expect(within(recognition).getByRole('status').textContent).toBe('');
    expect(backend.callsOf('speech.importModel')).toStrictEqual([{ path: '/models/sherpa-onnx-streaming-zipformer-cs-2024', purpose: 'voice' }]);
    expect(backend.voice.current).toBeUndefined();
  });

  it("in Electron the voice part asks main's chooser for a folder or an archive, with purpose voice", async () => {
    const backend = speechBackend({ chooser: true });
    const { user, group } = await openSpeech(backend);
    const { synthesis } = parts(group);
    expect(within(group).queryByRole('textbox')).toBeNull();
    await user.click(button(synthesis, 'Import voice archive…'));
    expect(await within(synthesis).findByText('Voice imported.')).toBeTruthy();
    await user.click(button(synthesis, 'Import voice folder…'));
    await waitFor(() => expect(backend.callsOf('speech.importModel')).toStrictEqual([{ choose: 'archive', purpose: 'voice' }, { purpose: 'voice' }]));
    expect(backend.model.current).toBeUndefined();
  });

  it('in Czech', async () => {
    const backend = speechBackend();
    backend.voice.current = amyVoice;
    await openSpeech(backend);
    act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
    const group = await screen.findByRole('group', { name: 'Řeč' });
    const synthesis = part(group, 'Syntéza řeči');
    expect(within(synthesis).getByText('Hlas: vits-piper-en_US-amy-low')).toBeTruthy();
    expect(within(synthesis).getByText('Jazyky: angličtina (USA)')).toBeTruthy();
    expect(within(synthesis).getByText('Odpovědi v ostatních jazycích čte nahlas espeak-ng.')).toBeTruthy();
    expect(within(synthesis).getByRole('button', { name: 'Odebrat hlas' })).toBeTruthy();
    expect(within(synthesis).getByRole('textbox', { name: 'Složka nebo archiv hlasu' })).toBeTruthy();
  });
});
