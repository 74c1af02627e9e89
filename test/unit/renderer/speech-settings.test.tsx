import { act, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SpeechModelInfo, SpeechStatus } from '../../../src/shared/speech/ipc-schemas';
import { createFakeBackend, type FakeBackend } from './fake-api';
import { renderApp } from './render-app';

/** Settings → Speech (#17): the model in use, Import (typed path in the web shell, main's chooser in Electron), progress, Remove, errors, synthesis. */
const czechModel: SpeechModelInfo = { name: 'sherpa-onnx-streaming-zipformer-cs-2024', languages: ['cs', 'en'], kind: 'transducer', importedAt: '2026-12-02T15:00:00.000Z' };

/** A fake main whose speech.status follows the imports and removals it answered. */
function speechBackend(options: { chooser?: boolean; espeak?: boolean } = {}): FakeBackend & { model: { current: SpeechModelInfo | undefined } } {
  const backend = createFakeBackend();
  const model = { current: undefined as SpeechModelInfo | undefined };
  const status = (): SpeechStatus => ({
    synthesis: options.espeak === false ? { available: false, engine: 'espeak-ng', missing: 'sudo apt-get install espeak-ng' } : { available: true, engine: 'espeak-ng' },
    recognition: model.current
      ? { available: true, engine: 'sherpa-onnx', model: { name: model.current.name, languages: model.current.languages }, imported: model.current, folderChooser: options.chooser ?? false }
      : { available: false, engine: 'none', reason: 'No speech model is imported.', folderChooser: options.chooser ?? false },
  });
  backend.handle('speech.status', () => ({ ok: true, value: status() }));
  backend.handle('speech.importModel', () => {
    model.current = czechModel;
    return { ok: true, value: { model: czechModel } };
  });
  backend.handle('speech.removeModel', () => {
    model.current = undefined;
    return { ok: true, value: {} };
  });
  return Object.assign(backend, { model });
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
    backend.failNext('speech.importModel', { code: 'speech_model_invalid', message: 'This folder holds no speech model AgentDesk can load: an encoder .onnx file missing.' });
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
    expect(within(group).getAllByRole('status').map((status) => status.textContent)).toEqual(['', '', '']);
  });

  it('in Electron imports an archive through main\'s chooser too, and shows the unpacking before the copy', async () => {
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

  it('says when the imported model cannot be used now, with main\'s reason behind Details', async () => {
    const backend = speechBackend();
    const reason = 'The speech model could not be loaded: its file encoder.onnx changed since it was imported; import the model again.';
    backend.handle('speech.status', () => ({
      ok: true,
      value: { synthesis: { available: true, engine: 'espeak-ng' }, recognition: { available: false, engine: 'sherpa-onnx', model: { name: czechModel.name, languages: czechModel.languages }, reason, imported: czechModel, folderChooser: false } },
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
