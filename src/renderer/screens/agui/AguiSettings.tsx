import { useId, useState, type FormEvent } from 'react';
import { parseForwardedProps } from '../../../shared/agui/interrupts';
import type { AguiServerSettings } from '../../../shared/agui/ipc-schemas';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorText, type ShownError } from '../../components/ErrorText';
import { call } from '../../hooks/useLiveResource';
import { TokenField } from '../../components/TokenField';
import { useI18n } from '../../i18n/I18nProvider';

/** What iac-code needs (its adapter reads forwardedProps.iacCode.cwd). */
export const forwardedPropsExample = '{"iacCode":{"cwd":"/path"}}';

type Saved = 'tokenSaved' | 'tokenRemoved' | 'propsSaved';

/** A refusal with the JSON pointer of what was wrong, when main (or the local check) named one. */
function PathError({ id, error }: { id: string; error: ShownError & { path?: string } }) {
  const { t } = useI18n();
  return (
    <p id={id} className="field__error" role="alert">
      <span>
        {error.path !== undefined && error.path !== '' ? <>{t('agui.props.errorAt', { path: error.path })} </> : null}
        <ErrorText error={error} />
      </span>
    </p>
  );
}

/**
 * The server's connection settings, collapsed: the bearer token (a password field; main keeps it
 * in the keychain and only says whether one is saved) and forwardedProps as JSON text, checked here
 * for being a JSON object and by main (which may refuse it with the path of the problem).
 */
export function AguiSettings({
  api,
  agentId,
  server,
  onChanged,
}: {
  api: AgentDeskApi;
  agentId: string;
  server: AguiServerSettings;
  onChanged: (view: AguiServerSettings) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [props, setProps] = useState(server.forwardedProps);
  const [busy, setBusy] = useState<'token' | 'props' | undefined>();
  const [tokenError, setTokenError] = useState<IpcError | undefined>();
  const [propsError, setPropsError] = useState<(ShownError & { path?: string }) | undefined>();
  const [saved, setSaved] = useState<Saved | undefined>();

  async function saveToken(value: string): Promise<boolean> {
    if (busy) return false;
    setBusy('token');
    setTokenError(undefined);
    setSaved(undefined);
    const result = await call(() => api.agui.useToken({ agentId, token: value }));
    setBusy(undefined);
    if (!result.ok) {
      setTokenError(result.error);
      return false;
    }
    setSaved(value === '' ? 'tokenRemoved' : 'tokenSaved');
    onChanged(result.value);
    return true;
  }

  async function saveProps(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setSaved(undefined);
    const local = parseForwardedProps(props);
    if (!local.ok) {
      const problem = local.problems[0];
      setPropsError({ code: 'invalid_request', message: problem?.message ?? '', path: problem?.path ?? '' });
      return;
    }
    setBusy('props');
    setPropsError(undefined);
    const result = await call(() => api.agui.setForwardedProps({ agentId, json: props }));
    setBusy(undefined);
    if (!result.ok) return setPropsError(result.error);
    setProps(result.value.forwardedProps);
    setSaved('propsSaved');
    onChanged(result.value);
  }

  const propsId = `${id}-props`;
  return (
    <details className="agui-settings">
      <summary className="agui-settings__summary">{t('agui.settings.title')}</summary>
      <div className="agui-settings__body">
        <TokenField
          label={t('agui.token.label')}
          hint={t('agui.token.hint')}
          saveLabel={t('agui.token.save')}
          state={<p className="agui-settings__state">{server.hasToken ? t('agui.token.saved') : t('agui.token.none')}</p>}
          busy={busy === 'token'}
          disabled={busy !== undefined}
          onSave={saveToken}
          error={tokenError}
          actions={(clear) =>
            server.hasToken ? (
              <button
                type="button"
                className="button button--secondary"
                disabled={busy !== undefined}
                onClick={() => void saveToken('').then((removed) => removed && clear())}
              >
                {t('agui.token.remove')}
              </button>
            ) : null
          }
        />
        <form className="field" noValidate onSubmit={(event) => void saveProps(event)}>
          <label htmlFor={propsId} className="field__label">
            {t('agui.props.label')}
          </label>
          <p id={`${propsId}-hint`} className="field__hint">
            {t('agui.props.hint', { example: forwardedPropsExample })}
          </p>
          <textarea
            id={propsId}
            className="input agui-settings__json"
            rows={5}
            spellCheck={false}
            autoComplete="off"
            placeholder={forwardedPropsExample}
            value={props}
            readOnly={busy === 'props'}
            aria-describedby={`${propsId}-hint${propsError ? ` ${propsId}-error` : ''}`}
            aria-invalid={propsError ? true : undefined}
            onChange={(event) => setProps(event.target.value)}
          />
          <div className="button-row">
            <button type="submit" className="button button--secondary" disabled={busy !== undefined} aria-busy={busy === 'props' || undefined}>
              {t('agui.props.save')}
            </button>
          </div>
          {propsError ? <PathError id={`${propsId}-error`} error={propsError} /> : null}
        </form>
        <div role="status" className="feedback">
          {saved === 'tokenSaved' ? <p className="success-text">{t('agui.token.savedNow')}</p> : null}
          {saved === 'tokenRemoved' ? <p className="success-text">{t('agui.token.removedNow')}</p> : null}
          {saved === 'propsSaved' ? <p className="success-text">{t('agui.props.savedNow')}</p> : null}
        </div>
      </div>
    </details>
  );
}
