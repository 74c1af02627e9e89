import type { IpcError } from '../../shared/base/errors';
import { useI18n } from '../i18n/I18nProvider';
import { ErrorText } from './ErrorText';

/** Why a link from a message could not be opened in the system browser (see useOpenLink). */
export function LinkOpenError({ error }: { error: IpcError | undefined }) {
  const { t } = useI18n();
  if (!error) return null;
  return (
    <div className="inline-error link-error" role="alert">
      <p className="error-text">
        {t('chat.link.openFailed')} <ErrorText error={error} />
      </p>
    </div>
  );
}
