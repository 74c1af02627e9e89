import { useId } from 'react';
import type { MethodResponse } from '../../../../shared/ipc/contract';
import type { UsageMeter } from '../../../../shared/talkie/content';
import { ErrorText } from '../../../components/ErrorText';
import type { Resource } from '../../../hooks/useLiveResource';
import { useI18n } from '../../../i18n/I18nProvider';
import { formatNumber } from '../../../components/format';

export type TalkieStatus = MethodResponse<'talkie.status'>;

/** Talkie 1 §4: who is signed in and the usage meters (updated by `talkie.usage` during runs). */
export function AccountPanel({ status, usage, onRetry }: { status: Resource<TalkieStatus>; usage: UsageMeter[] | undefined; onRetry: () => void }) {
  const { t } = useI18n();
  const headingId = `${useId()}-account`;
  const meters = usage ?? (status.status === 'ready' ? status.value.usage : []);
  const user = status.status === 'ready' ? status.value.user : undefined;
  if (status.status === 'loading' && meters.length === 0) return null;
  return (
    <section className="account" aria-labelledby={headingId}>
      <h2 id={headingId} className="account__title">
        {t('chat.account.title')}
      </h2>
      {user ? <p className="account__user">{t('chat.account.signedInAs', { name: user.name })}</p> : null}
      {status.status === 'error' ? (
        <div className="inline-error">
          <p className="error-text">
            {t('chat.account.loadFailed')} <ErrorText error={status.error} />
          </p>
          {status.error.retryable ? (
            <button type="button" className="button button--secondary" onClick={onRetry}>
              {t('chat.retry')}
            </button>
          ) : null}
        </div>
      ) : null}
      {meters.length > 0 ? (
        <ul className="meters">
          {meters.map((meter, index) => (
            <Meter key={`${meter.label}-${index}`} meter={meter} />
          ))}
        </ul>
      ) : null}
    </section>
  );
}

function Meter({ meter }: { meter: UsageMeter }) {
  const { t, language } = useI18n();
  const id = useId();
  const used = formatNumber(meter.used, language);
  const unit = meter.unit ?? '';
  const text =
    meter.limit !== undefined
      ? t(unit === '' ? 'chat.usage.ofLimit' : 'chat.usage.ofLimitUnit', { used, limit: formatNumber(meter.limit, language), unit })
      : t(unit === '' ? 'chat.usage.used' : 'chat.usage.usedUnit', { used, unit });
  return (
    <li className="meter">
      <label htmlFor={`${id}-bar`} className="meter__label" id={`${id}-label`}>
        {meter.label}
      </label>
      {meter.limit !== undefined && meter.limit > 0 ? (
        <progress id={`${id}-bar`} className="meter__bar" value={Math.min(meter.used, meter.limit)} max={meter.limit} aria-describedby={`${id}-text`} />
      ) : null}
      <span id={`${id}-text`} className="meter__text">
        {text}
      </span>
    </li>
  );
}
