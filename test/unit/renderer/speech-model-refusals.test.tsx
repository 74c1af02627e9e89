import { act, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { IpcError } from '../../../src/shared/base/errors';
import { createFakeBackend } from './fake-api';
import { renderApp } from './render-app';

/**
 * Settings → Speech when main refuses an import because the folder has a symbolic link or a file changed
 * while it was copied (speech-models.ts): the refusal in the user's language, main's English sentence
 * (naming the file) as the line in English and behind Details in Czech.
 */
function refusingBackend(error: IpcError) {
  const backend = createFakeBackend();
  backend.handle('speech.status', () => ({
    ok: true,
    value: {
      synthesis: { available: true, engine: 'espeak-ng' },
      recognition: { available: false, engine: 'none', reason: 'No speech model is imported.', folderChooser: false },
    },
  }));
  backend.handle('speech.importModel', () => ({ ok: false, error }));
  return backend;
}

const symlink: IpcError = {
  code: 'speech_model_symlink',
  message: 'The model folder has a symbolic link (tokens.txt); AgentDesk imports only real files: put the files themselves in the folder.',
};
const changed: IpcError = {
  code: 'speech_model_changed',
  message:
    'encoder.onnx changed while it was being imported (it was 9437204 bytes when checked and is 10485780 bytes now); import the model again once nothing writes to its folder.',
};

async function importRefused(error: IpcError, language: 'en' | 'cs') {
  const backend = refusingBackend(error);
  const { user } = await renderApp({ backend });
  if (language === 'cs') act(() => backend.emit('settings.changed', { ...backend.state.settings, language: 'cs' }));
  await user.click(screen.getByRole('button', { name: language === 'cs' ? 'Nastavení' : 'Settings' }));
  const group = await screen.findByRole('group', { name: language === 'cs' ? 'Řeč' : 'Speech' });
  await user.type(within(group).getAllByRole('textbox')[0]!, '/models/x');
  await user.click(within(group).getByRole('button', { name: language === 'cs' ? 'Importovat' : 'Import' }));
  return group;
}

describe('Settings → Speech refusing an import', () => {
  it("in English: main's sentence naming the link", async () => {
    expect((await within(await importRefused(symlink, 'en')).findByText(/symbolic link \(tokens\.txt\)/)).textContent).toContain(
      'AgentDesk imports only real files',
    );
  });

  it('in Czech: a symbolic link', async () => {
    const group = await importRefused(symlink, 'cs');
    expect(await within(group).findByText(/Složka nebo archiv modelu obsahuje odkaz; AgentDesk importuje jen skutečné soubory\./)).toBeTruthy();
  });

  it('in Czech: a file that changed during the import', async () => {
    const group = await importRefused(changed, 'cs');
    expect(await within(group).findByText(/Soubor modelu se během importu změnil; zkuste to znovu, až bude kompletní\./)).toBeTruthy();
  });
});
