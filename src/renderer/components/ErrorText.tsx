import { ipcErrorCodes, type IpcError, type IpcErrorCode } from '../../shared/ipc/errors';
import { useI18n } from '../i18n/I18nProvider';
import { errorKey } from '../i18n/strings';

const knownCodes: ReadonlySet<string> = new Set(ipcErrorCodes);

function isKnownCode(code: string): code is IpcErrorCode {
  return knownCodes.has(code);
}

/**
 * The text of an IPC failure. Main writes its messages in English and they are specific
 * ("crm.example.com is already in your list."), so the English UI shows them as they are.
 * Other languages lead with the catalogue's sentence for the error code and keep main's message
 * after it, marked as English so screen readers pronounce it correctly.
 */
export function ErrorText({ error }: { error: IpcError }) {
  const { language, t } = useI18n();
  const generic = t(isKnownCode(error.code) ? errorKey(error.code) : 'error.unknown');
  const message = typeof error.message === 'string' ? error.message.trim() : '';
  if (message === '' || message === generic) return <>{generic}</>;
  if (language === 'en') return <>{message}</>;
  return (
    <>
      {generic} <span lang="en">{message}</span>
    </>
  );
}
