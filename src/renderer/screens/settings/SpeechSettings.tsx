import { useCallback, useEffect, useId, useState, type ReactNode } from 'react';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError, IpcResult } from '../../../shared/base/errors';
import {
  recognitionModelsUrl,
  recognizerInUse,
  type RecognizerInUse,
  type SpeechImportProgress,
  type SpeechPurpose,
  type SpeechStatus,
} from '../../../shared/speech/ipc-schemas';
import { ErrorDetails, ErrorText } from '../../components/ErrorText';
import { call, useLiveResource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';

/**
 * Settings → Speech (#17), in two parts. Recognition: which recognizer is in use (the imported model,
 * basic English with pocketsphinx while none is imported, or nothing: then what to import and where
 * sherpa-onnx publishes models, in one sentence), the imported speech model and its languages.
 * Synthesis: the imported Piper voice (sherpa-onnx) and its languages, or espeak-ng alone, and whether
 * espeak-ng (the voice of every other language) is installed, else the command that installs it. Each
 * part has the same import controls (ModelImport, with its `purpose`): Import (main's chooser in
 * Electron, for a folder or its archive; a typed path of either in the web shell), Remove, the import's
 * progress and its outcome. One import runs at a time (main refuses a second), so while either part
 * imports or removes, both parts' buttons wait; progress events carry no purpose and show in the part
 * that started the import. Main decides everything (which files, the checks, the admin PIN); this shows
 * its status and its answers. `children` (the barge-in choice, a setting) ends the group.
 */
type Outcome = { kind: 'imported' | 'removed' } | { kind: 'error'; error: IpcError } | null;

const megabytes = (bytes: number) => Math.max(0, Math.round(bytes / (1024 * 1024)));

/** The words of each part's import controls; the rule that uses them lives once, in ModelImport. */
const importWords = {
  recognition: {
    pathLabel: 'settings.speech.path.label',
    pathHint: 'settings.speech.path.hint',
    import: 'settings.speech.import',
    importChoose: 'settings.speech.importChoose',
    importArchive: 'settings.speech.importArchive',
    remove: 'settings.speech.remove',
    copying: 'settings.speech.copying',
    verifying: 'settings.speech.verifying',
    imported: 'settings.speech.imported',
    removed: 'settings.speech.removed',
    invalid: 'error.speech_model_invalid',
  },
  voice: {
    pathLabel: 'settings.speech.voice.path.label',
    pathHint: 'settings.speech.voice.path.hint',
    import: 'settings.speech.voice.import',
    importChoose: 'settings.speech.voice.importChoose',
    importArchive: 'settings.speech.voice.importArchive',
    remove: 'settings.speech.voice.remove',
    copying: 'settings.speech.voice.copying',
    verifying: 'settings.speech.voice.verifying',
    imported: 'settings.speech.voice.imported',
    removed: 'settings.speech.voice.removed',
    invalid: 'settings.speech.voice.invalid',
  },
} as const satisfies Record<SpeechPurpose, Record<string, MessageKey>>;

/** The recognizer in use, in words (`recognizerInUse` decides which, from main's status). */
const inUseWords = {
  model: 'settings.speech.inUse.model',
  basic: 'settings.speech.inUse.basic',
  commands: 'settings.speech.inUse.commands',
  none: 'settings.speech.inUse.none',
} as const satisfies Record<RecognizerInUse, MessageKey>;

/** Which part imports or removes now (one at a time), the progress main reports for it, and the way to run one. */
interface SpeechImports {
  busy: SpeechPurpose | null;
  progress: SpeechImportProgress | undefined;
  run: <T>(purpose: SpeechPurpose, invoke: () => Promise<IpcResult<T>>) => Promise<IpcResult<T>>;
}

function useSpeechImports(api: AgentDeskApi): SpeechImports {
  const [busy, setBusy] = useState<SpeechPurpose | null>(null);
  const [progress, setProgress] = useState<SpeechImportProgress | undefined>(undefined);
  useEffect(() => api.speech.onImportProgress((payload) => setProgress(payload)), [api]);
  const run = useCallback(async <T,>(purpose: SpeechPurpose, invoke: () => Promise<IpcResult<T>>) => {
    setBusy(purpose);
    setProgress(undefined);
    const result = await call(invoke);
    setBusy(null);
    setProgress(undefined);
    return result;
  }, []);
  return { busy, progress, run };
}

/**
 * One part's import controls: the typed path (web shell) or Import folder… and Import archive… (main's
 * chooser), Remove when something is imported, the progress of this part's import and its outcome.
 * A voice's requests carry `purpose: 'voice'`; a recognizer's carry no purpose (main's default).
 */
function ModelImport({
  api,
  purpose,
  chooser,
  removable,
  imports,
  onChanged,
}: {
  api: AgentDeskApi;
  purpose: SpeechPurpose;
  chooser: boolean;
  removable: boolean;
  imports: SpeechImports;
  onChanged: () => Promise<void>;
}) {
  const { t } = useI18n();
  const id = useId();
  const words = importWords[purpose];
  const [path, setPath] = useState('');
  const [outcome, setOutcome] = useState<Outcome>(null);
  const busy = imports.busy !== null;
  const progress = imports.busy === purpose ? imports.progress : undefined;
  const scope = purpose === 'voice' ? ({ purpose } as const) : {};

  /** Runs an import or a removal; `done` says whether there is news (a cancelled chooser is none). */
  async function act<T>(kind: 'imported' | 'removed', invoke: () => Promise<IpcResult<T>>, done: (value: T) => boolean = () => true) {
    setOutcome(null);
    const result = await imports.run(purpose, invoke);
    if (result.ok && !done(result.value)) return;
    setOutcome(result.ok ? { kind } : { kind: 'error', error: result.error });
    if (result.ok) setPath('');
    await onChanged();
  }
  const importModel = (request: { path?: string; choose?: 'folder' | 'archive' }) =>
    void act(
      'imported',
      () => api.speech.importModel({ ...request, ...scope }),
      (value) => value.model !== undefined,
    );

  return (
    <>
      {chooser ? null : (
        <div className="field">
          <label htmlFor={`${id}-path`} className="field__label">
            {t(words.pathLabel)}
          </label>
          <p id={`${id}-path-hint`} className="field__hint">
            {t(words.pathHint)}
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
          {t(chooser ? words.importChoose : words.import)}
        </button>{' '}
        {chooser ? (
          <>
            <button type="button" className="button button--secondary" disabled={busy} onClick={() => importModel({ choose: 'archive' })}>
              {t(words.importArchive)}
            </button>{' '}
          </>
        ) : null}
        {removable ? (
          <button
            type="button"
            className="button button--secondary"
            disabled={busy}
            onClick={() => void act('removed', () => api.speech.removeModel({ ...scope }))}
          >
            {t(words.remove)}
          </button>
        ) : null}
      </p>
      {progress ? (
        <div className="field">
          <label htmlFor={`${id}-progress`} className="field__hint">
            {progress.phase === 'verifying'
              ? t(words.verifying)
              : t(progress.phase === 'unpacking' ? 'settings.speech.unpacking' : words.copying, {
                  done: String(megabytes(progress.bytesDone)),
                  total: String(megabytes(progress.bytesTotal)),
                })}
          </label>
          <progress
            id={`${id}-progress`}
            className="meter__bar"
            {...(progress.phase !== 'verifying' && progress.bytesTotal > 0 ? { value: progress.bytesDone, max: progress.bytesTotal } : {})}
          />
        </div>
      ) : null}
      <div role="status" className="feedback">
        {outcome?.kind === 'imported' ? <p className="success-text">{t(words.imported)}</p> : null}
        {outcome?.kind === 'removed' ? <p className="success-text">{t(words.removed)}</p> : null}
        {outcome?.kind === 'error' ? (
          <p className="error-text">
            {outcome.error.code === 'speech_model_invalid' || outcome.error.code === 'speech_unavailable' ? (
              <>
                {t(outcome.error.code === 'speech_model_invalid' ? words.invalid : 'error.speech_unavailable')} <ErrorDetails detail={outcome.error.message} />
              </>
            ) : (
              <ErrorText error={outcome.error} />
            )}
          </p>
        ) : null}
      </div>
    </>
  );
}

export function SpeechSettings({ api, children }: { api: AgentDeskApi; children?: ReactNode }) {
  const { t, language } = useI18n();
  const loadStatus = useCallback(() => call(() => api.speech.status({})), [api]);
  const { state: status, set: setStatus } = useLiveResource<SpeechStatus>(loadStatus);
  const imports = useSpeechImports(api);
  const refresh = useCallback(async () => {
    const fresh = await call(() => api.speech.status({}));
    if (fresh.ok) setStatus(fresh.value);
  }, [api, setStatus]);

  const languageName = (tag: string) => {
    try {
      return new Intl.DisplayNames([language], { type: 'language' }).of(tag) ?? tag;
    } catch {
      return tag;
    }
  };
  const languagesLine = (languages: readonly string[]) =>
    t('settings.speech.languages', { languages: languages.length > 0 ? languages.map(languageName).join(', ') : t('settings.speech.languagesUnknown') });

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
  const voice = synthesis.imported;
  const voiceSpeaks = synthesis.engine === 'sherpa-onnx';
  const espeakMissing = synthesis.missing !== undefined || !synthesis.available;
  const chooser = recognition.folderChooser === true;
  const inUse = recognizerInUse(recognition);

  return (
    <fieldset className="settings-group" aria-busy={imports.busy !== null || undefined}>
      <legend className="settings-group__legend">{t('settings.speech.legend')}</legend>
      <div className="speech-part">
        <h2 className="field__label">{t('settings.speech.recognition')}</h2>
        <p className="field__hint">{t('settings.speech.description')}</p>
        <p>{t('settings.speech.inUse', { recognizer: t(inUseWords[inUse]) })}</p>
        {imported ? (
          <div className="speech-model">
            <p>
              {t('settings.speech.model', { name: imported.name })} (
              {t(imported.kind === 'whisper' ? 'settings.speech.kind.whisper' : 'settings.speech.kind.transducer')})
            </p>
            <p>{languagesLine(imported.languages)}</p>
            {recognition.engine === 'sherpa-onnx' && !recognition.available ? (
              <p className="error-text">
                {t('settings.speech.modelFailed')} {recognition.reason ? <ErrorDetails detail={recognition.reason} /> : null}
              </p>
            ) : null}
          </div>
        ) : (
          <p>{t('settings.speech.noModel')}</p>
        )}
        {inUse === 'basic' ? <p>{t('settings.speech.basic')}</p> : null}
        {inUse === 'none' && !imported ? <p>{t('settings.speech.none', { url: recognitionModelsUrl })}</p> : null}
        <ModelImport api={api} purpose="recognition" chooser={chooser} removable={imported !== undefined} imports={imports} onChanged={refresh} />
      </div>
      <div className="speech-part">
        <h2 className="field__label">{t('settings.speech.synthesis')}</h2>
        {voice ? (
          <div className="speech-model">
            <p>{t('settings.speech.voice.name', { name: voice.name })}</p>
            <p>{languagesLine(voice.languages)}</p>
            {voiceSpeaks ? null : (
              <p className="error-text">
                {t('settings.speech.voice.failed')} {synthesis.reason ? <ErrorDetails detail={synthesis.reason} /> : null}
              </p>
            )}
          </div>
        ) : null}
        {espeakMissing ? (
          <p>
            {t(voiceSpeaks ? 'settings.speech.voice.othersMissing' : 'settings.speech.synthesisMissing')}{' '}
            <code>{synthesis.missing ?? 'sudo apt-get install espeak-ng'}</code>
          </p>
        ) : (
          <p>{t(voiceSpeaks ? 'settings.speech.voice.others' : 'settings.speech.synthesisReady')}</p>
        )}
        {voice ? null : <p className="field__hint">{t('settings.speech.voice.hint')}</p>}
        <ModelImport api={api} purpose="voice" chooser={chooser} removable={voice !== undefined} imports={imports} onChanged={refresh} />
      </div>
      {children}
    </fieldset>
  );
}
