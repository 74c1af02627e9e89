import { useCallback, useEffect, useId, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { IpcError } from '../../shared/ipc/errors';
import type { SpeechImportProgress, SpeechStatus } from '../../shared/speech/ipc-schemas';
import { ErrorDetails, ErrorText } from '../components/ErrorText';
import type { IpcResult } from '../../shared/ipc/errors';
import { call, useLiveResource } from '../hooks/useLiveResource';
import { useI18n } from '../i18n/I18nProvider';

/**
 * Settings → Speech (#17): the speech model in use and its languages, Import (main's chooser in
 * Electron, for a model folder or its archive; a typed path of either in the web shell), Remove, the import's progress, and whether speech
 * synthesis (espeak-ng) is installed. Main decides everything (which files, the checks, the admin PIN);
 * this shows its status and its answers. `children` (the barge-in choice, a setting) ends the group.
 */
type Outcome = { kind: 'imported' | 'removed' } | { kind: 'error'; error: IpcError } | null;

const megabytes = (bytes: number) => Math.max(0, Math.round(bytes / (1024 * 1024)));

export function SpeechSettings({ api, children }: { api: AgentDeskApi; children?: ReactNode }) {
  const { t, language } = useI18n();
  const id = useId();
  const loadStatus = useCallback(() => call(() => api.speech.status({})), [api]);
  const { state: status, set: setStatus } = useLiveResource<SpeechStatus>(loadStatus);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<SpeechImportProgress | undefined>(undefined);
  const [outcome, setOutcome] = useState<Outcome>(null);
  const [path, setPath] = useState('');

  useEffect(() => api.speech.onImportProgress((payload) => setProgress(payload)), [api]);

  /** Runs an import or a removal; `done` says whether there is news (a cancelled folder chooser is none). */
  async function act<T>(kind: 'imported' | 'removed', invoke: () => Promise<IpcResult<T>>, done: (value: T) => boolean = () => true) {
    setBusy(true);
    setOutcome(null);
    setProgress(undefined);
    const result = await call(invoke);
    setBusy(false);
    setProgress(undefined);
    if (result.ok && !done(result.value)) return;
    setOutcome(result.ok ? { kind } : { kind: 'error', error: result.error });
    if (result.ok) setPath('');
    const fresh = await call(() => api.speech.status({}));
    if (fresh.ok) setStatus(fresh.value);
  }
  const importModel = (request: { path?: string; choose?: 'folder' | 'archive' }) => void act('imported', () => api.speech.importModel(request), (value) => value.model !== undefined);

  const languageName = (tag: string) => {
    try {
      return new Intl.DisplayNames([language], { type: 'language' }).of(tag) ?? tag;
    } catch {
      return tag;
    }
  };

  if (status.status !== 'ready') {
    return (
      <fieldset className="settings-group">
        <legend className="settings-group__legend">{t('settings.speech.legend')}</legend>
        {status.status === 'error' ? (
          <p className="error-text">
            {t('settings.speech.statusFailed')} <ErrorText error={status.error} />
          </p>
        ) : null}
        {children}
      </fieldset>
    );
  }
  const { recognition, synthesis } = status.value;
  const imported = recognition.imported;
  const chooser = recognition.folderChooser === true;
  const importing = busy && progress !== undefined;

  return (
    <fieldset className="settings-group" aria-busy={busy || undefined}>
      <legend className="settings-group__legend">{t('settings.speech.legend')}</legend>
      <h2 className="field__label">{t('settings.speech.recognition')}</h2>
      <p className="field__hint">{t('settings.speech.description')}</p>
      {recognition.engine === 'pocketsphinx' ? <p>{t('settings.speech.testRecognizer')}</p> : null}
      {imported ? (
        <div className="speech-model">
          <p>
            {t('settings.speech.model', { name: imported.name })} ({t(imported.kind === 'whisper' ? 'settings.speech.kind.whisper' : 'settings.speech.kind.transducer')})
          </p>
          <p>
            {t('settings.speech.languages', {
              languages: imported.languages.length > 0 ? imported.languages.map(languageName).join(', ') : t('settings.speech.languagesUnknown'),
            })}
          </p>
          {recognition.engine === 'sherpa-onnx' && !recognition.available ? (
            <p className="error-text">
              {t('settings.speech.modelFailed')} {recognition.reason ? <ErrorDetails detail={recognition.reason} /> : null}
            </p>
          ) : null}
        </div>
      ) : recognition.engine === 'none' ? (
        <p>{t('settings.speech.noModel')}</p>
      ) : null}
      {chooser ? null : (
        <div className="field">
          <label htmlFor={`${id}-path`} className="field__label">
            {t('settings.speech.path.label')}
          </label>
          <p id={`${id}-path-hint`} className="field__hint">
            {t('settings.speech.path.hint')}
          </p>
          <input
            id={`${id}-path`}
            className="input"
            type="text"
            autoComplete="off"
            spellCheck={false}
            value={path}
            disabled={busy}
            aria-describedby={`${id}-path-hint`}
            onChange={(event) => setPath(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && path.trim() !== '' && !busy) {
                event.preventDefault();
                importModel({ path: path.trim() });
              }
            }}
          />
        </div>
      )}
      <p className="button-row">
        <button
          type="button"
          className="button"
          disabled={busy || (!chooser && path.trim() === '')}
          onClick={() => importModel(chooser ? {} : { path: path.trim() })}
        >
          {t(chooser ? 'settings.speech.importChoose' : 'settings.speech.import')}
        </button>{' '}
        {chooser ? (
          <>
            <button type="button" className="button button--secondary" disabled={busy} onClick={() => importModel({ choose: 'archive' })}>
              {t('settings.speech.importArchive')}
            </button>{' '}
          </>
        ) : null}
        {imported ? (
          <button type="button" className="button button--secondary" disabled={busy} onClick={() => void act('removed', () => api.speech.removeModel({}))}>
            {t('settings.speech.remove')}
          </button>
        ) : null}
      </p>
      {importing ? (
        <div className="field">
          <label htmlFor={`${id}-progress`} className="field__hint">
            {progress.phase === 'verifying'
              ? t('settings.speech.verifying')
              : t(progress.phase === 'unpacking' ? 'settings.speech.unpacking' : 'settings.speech.copying', { done: String(megabytes(progress.bytesDone)), total: String(megabytes(progress.bytesTotal)) })}
          </label>
          <progress
            id={`${id}-progress`}
            className="meter__bar"
            {...(progress.phase !== 'verifying' && progress.bytesTotal > 0 ? { value: progress.bytesDone, max: progress.bytesTotal } : {})}
          />
        </div>
      ) : null}
      <div role="status" className="feedback">
        {outcome?.kind === 'imported' ? <p className="success-text">{t('settings.speech.imported')}</p> : null}
        {outcome?.kind === 'removed' ? <p className="success-text">{t('settings.speech.removed')}</p> : null}
        {outcome?.kind === 'error' ? (
          <p className="error-text">
            {outcome.error.code === 'speech_model_invalid' || outcome.error.code === 'speech_unavailable' ? (
              <>
                {t(outcome.error.code === 'speech_model_invalid' ? 'error.speech_model_invalid' : 'error.speech_unavailable')} <ErrorDetails detail={outcome.error.message} />
              </>
            ) : (
              <ErrorText error={outcome.error} />
            )}
          </p>
        ) : null}
      </div>
      <h2 className="field__label">{t('settings.speech.synthesis')}</h2>
      {synthesis.available ? (
        <p>{t('settings.speech.synthesisReady')}</p>
      ) : (
        <p>
          {t('settings.speech.synthesisMissing')} <code>{synthesis.missing ?? 'sudo apt-get install espeak-ng'}</code>
        </p>
      )}
      {children}
    </fieldset>
  );
}
