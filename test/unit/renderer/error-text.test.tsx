import { cleanup, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorText } from '../../../src/renderer/components/ErrorText';
import { I18nProvider } from '../../../src/renderer/i18n/I18nProvider';

afterEach(cleanup);

const saveFailed = { code: 'save_failed', message: 'agents.json could not be saved in /data: the disk is full. The saved copy is unchanged.' };

function show(language: 'en' | 'cs', error: { code: string; message: string }) {
  return render(
    <I18nProvider setting={language}>
      <p data-testid="line">
        <ErrorText error={error} />
      </p>
    </I18nProvider>,
  );
}

describe('ErrorText in the user’s language', () => {
  it('English: main’s specific message is the line', () => {
    show('en', saveFailed);
    expect(screen.getByTestId('line').textContent).toBe(saveFailed.message);
  });

  it('Czech: the code’s Czech sentence is the line; main’s English message only behind Details', async () => {
    show('cs', saveFailed);
    const line = screen.getByTestId('line');
    const details = screen.getByText(saveFailed.message);
    expect(details.closest('[hidden]')).not.toBeNull();
    expect(details.getAttribute('lang')).toBe('en');
    // What is visible without Details is Czech: the sentence for save_failed and the toggle.
    const hiddenText = line.querySelector('[hidden]')?.textContent ?? '';
    expect(hiddenText).toContain(saveFailed.message);
    const mainLine = (line.textContent ?? '').replace(hiddenText, '');
    expect(mainLine).toBe('Změnu se nepodařilo uložit; dříve uložená data zůstala beze změny. Podrobnosti');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Podrobnosti' }));
    expect(details.closest('[hidden]')).toBeNull();
  });

  it('Czech: a Talkie server’s own message stays as the server wrote it', () => {
    show('cs', { code: 'server_error', message: 'Server je přetížený.' });
    expect(screen.getByTestId('line').textContent).toBe('Server je přetížený.');
  });
});
