import { useId, type ReactNode } from 'react';
import type { AppInfo } from '../../hooks/useApiData';
import type { Resource } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';

export function About({ info }: { info: Resource<AppInfo> }) {
  const { t } = useI18n();
  const id = useId();
  let line: ReactNode;
  if (info.status === 'loading') line = <p className="muted">…</p>;
  else if (info.status === 'error') line = <p className="muted">{t('settings.about.unavailable')}</p>;
  else
    line = (
      <p>
        {t('settings.about.line', {
          name: info.value.name,
          version: info.value.version,
          shell: t(info.value.shell === 'web' ? 'settings.about.shell.web' : 'settings.about.shell.electron'),
        })}
      </p>
    );
  return (
    <section className="about" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="about__title">
        {t('settings.about.title')}
      </h2>
      {line}
    </section>
  );
}
