import { useId, useState } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { DiagnosticsSaveResponse } from '../../../shared/device-policy/ipc-schemas';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorText } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

type SaveState = { kind: 'idle' } | { kind: 'saving' } | { kind: 'done'; answer: DiagnosticsSaveResponse } | { kind: 'error'; error: IpcError };

/**
 * Settings → Diagnostics: Save diagnostics… asks main for the bundle (`diagnostics.save`), which
 * main writes where the user chooses. Under a device policy admin PIN main refuses it until the
 * PIN is entered, like settings changes; the refusal shows here.
 */
export function DiagnosticsSection({ api }: { api: AgentDeskApi }) {
  const { t } = useI18n();
  const id = useId();
  const [state, setState] = useState<SaveState>({ kind: 'idle' });

  async function save() {
    // Not `disabled` while saving: a disabled button would drop the keyboard focus to the page.
    if (state.kind === 'saving') return;
    setState({ kind: 'saving' });
    const result = await call(() => api.diagnostics.save({}));
    setState(result.ok ? { kind: 'done', answer: result.value } : { kind: 'error', error: result.error });
  }

  return (
    <section className="about" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="about__title">
        {t('settings.diagnostics.title')}
      </h2>
      <p className="field__hint">{t('settings.diagnostics.description')}</p>
      <button type="button" className="button button--secondary" onClick={() => void save()} aria-disabled={state.kind === 'saving'}>
        {t('settings.diagnostics.save')}
      </button>
      <div role="status" className="feedback">
        {state.kind === 'saving' ? <p className="muted">{t('settings.diagnostics.saving')}</p> : null}
        {state.kind === 'done' && state.answer.saved ? <p className="success-text">{t('settings.diagnostics.saved', { file: state.answer.file })}</p> : null}
        {state.kind === 'done' && !state.answer.saved ? <p className="muted">{t('settings.diagnostics.cancelled')}</p> : null}
        {state.kind === 'error' ? (
          <p className="error-text">
            <ErrorText error={state.error} />
          </p>
        ) : null}
      </div>
    </section>
  );
}
