import type { Problem } from '../../../../shared/talkie/problems';
import { useI18n } from '../../../i18n/I18nProvider';

/** What main noticed about the server's manifest (not fatal): collapsed by default. */
export function ManifestNotes({ problems }: { problems: Problem[] }) {
  const { t } = useI18n();
  if (problems.length === 0) return null;
  return (
    <details className="manifest-notes">
      <summary className="manifest-notes__summary">{t('chat.notes.title', { count: problems.length })}</summary>
      {/* Main writes these messages in English. */}
      <ul className="manifest-notes__list" lang="en">
        {problems.map((problem, index) => (
          <li key={index}>
            <code>{problem.code}</code>: {problem.message}
          </li>
        ))}
      </ul>
    </details>
  );
}
