import { useEffect, useId, useState } from 'react';
import type { WebPages } from '../../../shared/agentmesh/ipc-schemas';
import { uiLinkSkippedCodes } from '../../../shared/agentmesh/ui-links';
import type { AgentDeskApi } from '../../../shared/ipc/api';
import type { IpcError } from '../../../shared/base/errors';
import { ErrorAlert } from '../../components/ErrorText';
import { UntrustedLink } from '../../components/UntrustedLink';
import { call } from '../../hooks/useLiveResource';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { hostOf } from '../../components/format';
import '../../styles/webpages.css';

type WebPage = WebPages['links'][number];
type CardProblem = WebPages['problems'][number];

/** Codes of an entry the card lists that could not be used (one per skipped entry). */
const skippedEntryCodes: ReadonlySet<string> = new Set(uiLinkSkippedCodes);

const audienceKey: Record<WebPage['audience'], MessageKey> = {
  public: 'webpages.audience.public',
  client: 'webpages.audience.client',
  operator: 'webpages.audience.operator',
  unstated: 'webpages.audience.unstated',
};

const accessKey: Record<NonNullable<WebPage['access']>, MessageKey> = {
  authenticated: 'webpages.access.authenticated',
  open: 'webpages.access.open',
};

const belongsTo = (problem: CardProblem, page: WebPage): boolean => problem.path === page.path || problem.path.startsWith(`${page.path}/`);

type Loaded = { status: 'loading' } | { status: 'ready'; pages: WebPages } | { status: 'failed'; error: IpcError };

/**
 * The "Web pages" panel: the pages an agent's A2A card lists (AgentMesh UI links 0.1, read by main).
 * Every entry is an untrusted link (AgentMesh UI links 0.1 §5, `UntrustedLink`): shown as plain text with its labels, never
 * opened, embedded or fetched here; a click shows the full URL, and only "Open in browser" hands it
 * to `external.open`. Operator pages wait behind "Show operator pages"; a missing audience is shown as
 * such, never as public; pages on another site than the card are flagged (main computes it).
 * Nothing at all is shown for an agent whose card lists no pages and has nothing to say about them.
 * `expanded`: open from the start (the A2A page, where the pages are what there is to see).
 */
export function WebPagesPanel({ api, agentId, expanded: startExpanded = false }: { api: AgentDeskApi; agentId: string; expanded?: boolean }) {
  const { t } = useI18n();
  const [loaded, setLoaded] = useState<Loaded>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const [expanded, setExpanded] = useState(startExpanded);
  const [showOperator, setShowOperator] = useState(false);
  const bodyId = useId();

  useEffect(() => {
    let active = true;
    void call(() => api.agents.webPages({ agentId })).then((result) => {
      if (!active) return;
      setLoaded(result.ok ? { status: 'ready', pages: result.value } : { status: 'failed', error: result.error });
    });
    return () => {
      active = false;
    };
  }, [api, agentId, attempt]);

  if (loaded.status === 'loading') return null;
  const pages = loaded.status === 'ready' ? loaded.pages : undefined;
  if (pages && pages.links.length === 0 && pages.problems.length === 0) return null;

  const links = pages?.links ?? [];
  const problems = pages?.problems ?? [];
  const hidden = links.filter((page) => !page.shownByDefault).length;
  const shown = links.filter((page) => page.shownByDefault || showOperator);
  // Problems of a listed page are shown with it; the rest (skipped entries, the declaration) below.
  const cardProblems = problems.filter((problem) => !links.some((page) => belongsTo(problem, page)));
  const skipped = cardProblems.filter((problem) => skippedEntryCodes.has(problem.code)).length;

  return (
    <section className="web-pages" aria-label={t('webpages.listLabel')}>
      <button type="button" className="button web-pages__toggle" aria-expanded={expanded} aria-controls={bodyId} onClick={() => setExpanded((value) => !value)}>
        {t('webpages.title', { count: links.filter((page) => page.shownByDefault).length })}
      </button>
      {expanded ? (
        <div id={bodyId} className="web-pages__body">
          {loaded.status === 'failed' ? (
            <div className="web-pages__failed">
              <ErrorAlert summary={t('webpages.loadFailed')} error={loaded.error} />
              <button type="button" className="button button--secondary" onClick={() => setAttempt((n) => n + 1)}>
                {t('webpages.retry')}
              </button>
            </div>
          ) : (
            <>
              <p className="web-pages__intro">{t('webpages.intro')}</p>
              {shown.length > 0 ? (
                <ul className="web-pages__list">
                  {shown.map((page) => (
                    <WebPageItem key={page.path} api={api} page={page} problems={problems} />
                  ))}
                </ul>
              ) : null}
              {hidden > 0 ? (
                <button type="button" className="button button--secondary web-pages__operator" onClick={() => setShowOperator((value) => !value)}>
                  {showOperator ? t('webpages.hideOperator') : t('webpages.showOperator', { count: hidden })}
                </button>
              ) : null}
              {cardProblems.length > 0 ? (
                <details className="web-pages__problems">
                  <summary className="web-pages__problems-summary">
                    {skipped === 1
                      ? t('webpages.skipped.one')
                      : skipped > 1
                        ? t('webpages.skipped.many', { count: skipped })
                        : t('webpages.cardNotes', { count: cardProblems.length })}
                  </summary>
                  {/* Main writes these messages in English. */}
                  <ul className="web-pages__problem-list" lang="en">
                    {cardProblems.map((problem, index) => (
                      <li key={index}>{problem.message}</li>
                    ))}
                  </ul>
                </details>
              ) : null}
            </>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** One page: its label as a control that first shows the full URL (UntrustedLink), its purpose, labels and notes. */
function WebPageItem({ api, page, problems }: { api: AgentDeskApi; page: WebPage; problems: readonly CardProblem[] }) {
  const { t } = useI18n();
  // "Audience not stated" is already the page's audience label.
  const unstatedNote = problems.find((problem) => problem.code === 'ui_link_audience_unstated' && problem.path === `${page.path}/audience`)?.message;
  const notes = page.notes.filter((note) => note !== unstatedNote);

  return (
    <li className="web-page">
      <UntrustedLink api={api} url={page.url} label={page.label}>
        {page.purpose !== undefined ? <p className="web-page__purpose">{page.purpose}</p> : null}
        <ul className="web-page__labels">
          <li className={`web-page__label web-page__label--${page.audience}`}>{t(audienceKey[page.audience])}</li>
          {page.access !== undefined ? <li className="web-page__label">{t(accessKey[page.access])}</li> : null}
          {page.kind !== undefined ? <li className="web-page__label web-page__label--kind">{page.kind}</li> : null}
          {page.crossOrigin ? <li className="web-page__label web-page__label--other-site">{t('webpages.otherSite', { host: hostOf(page.url) })}</li> : null}
        </ul>
        {notes.length > 0 ? (
          <ul className="web-page__notes" lang="en">
            {notes.map((note, index) => (
              <li key={index}>{note}</li>
            ))}
          </ul>
        ) : null}
      </UntrustedLink>
    </li>
  );
}
