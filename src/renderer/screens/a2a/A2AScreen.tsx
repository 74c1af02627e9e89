import { useEffect, useId } from 'react';
import type { A2AAgentView } from '../../../shared/ipc/contract';
import { AgentHeader } from '../../components/AgentHeader';
import { useI18n } from '../../i18n/I18nProvider';
import type { AgentScreenProps } from '../../navigation';
import { hostOf } from '../../components/format';
import { UntrustedLink } from '../../components/UntrustedLink';
import { WebPagesPanel } from '../webpages/WebPagesPanel';
import '../../styles/a2a.css';

/**
 * A plain A2A agent (a valid card with neither Talkie nor the AgentCall extension): no session, so
 * its page shows what the card says (name, version, description, skills with their tags), the web
 * pages it lists, and who offers it: the provider, documentation and icon links, each an untrusted
 * link (UntrustedLink: the full URL first, opened only through `external.open`, flagged when it is
 * on another site than the card). The icon is a link too, never loaded as a picture (as Markdown
 * images are links): a picture the card chooses would dress up an agent AgentDesk cannot talk to.
 * Everything here is the card's own text, shown as plain text.
 */
export function A2AScreen({ api, headingRef, agentId, agent, onBack }: Omit<AgentScreenProps, 'label'> & { agent: A2AAgentView }) {
  const { t } = useI18n();
  const skillsId = useId();

  useEffect(() => {
    headingRef.current?.focus();
  }, [headingRef]);

  return (
    <div className="screen chat a2a">
      <AgentHeader
        className="agentcall-header"
        headingRef={headingRef}
        title={agent.name}
        onBack={onBack}
        subtitle={
          <>
            {agent.version !== '' ? <p className="agentcall-header__version">{t('agentcall.version', { version: agent.version })}</p> : null}
            {agent.description !== '' ? <p className="chat-header__description">{agent.description}</p> : null}
          </>
        }
      >
        <ul className="agentcall-header__facts">
          <li>{t('a2a.card', { host: hostOf(agent.cardUrl) })}</li>
        </ul>
      </AgentHeader>
      <p className="a2a__note" role="note">
        {t('a2a.noSession')}
      </p>
      <WebPagesPanel api={api} agentId={agentId} expanded />
      <CardLinks api={api} agent={agent} />
      <section className="card a2a-skills" aria-labelledby={skillsId}>
        <h2 id={skillsId} className="a2a-skills__title">
          {t('a2a.skills.title')}
        </h2>
        {agent.skills.length === 0 ? (
          <p className="muted">{t('a2a.skills.none')}</p>
        ) : (
          <ul className="a2a-skills__list">
            {agent.skills.map((skill, index) => (
              <li key={index} className="a2a-skill">
                <h3 className="a2a-skill__name">{skill.name}</h3>
                {skill.description !== '' ? <p className="a2a-skill__description">{skill.description}</p> : null}
                {skill.tags.length > 0 ? (
                  <ul className="a2a-skill__tags" aria-label={t('a2a.skills.tags', { name: skill.name })}>
                    {skill.tags.map((tag, tagIndex) => (
                      <li key={tagIndex} className="a2a-skill__tag">
                        {tag}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}

/** The card's provider, documentation and icon links; nothing when it gives none. */
function CardLinks({ api, agent }: { api: AgentScreenProps['api']; agent: A2AAgentView }) {
  const { t } = useI18n();
  const titleId = useId();
  const { provider, documentationUrl, iconUrl } = agent;
  if (provider === undefined && documentationUrl === undefined && iconUrl === undefined) return null;
  const cardOrigin = new URL(agent.cardUrl).origin;
  const otherSite = (url: string) =>
    new URL(url).origin === cardOrigin ? null : (
      <ul className="web-page__labels">
        <li className="web-page__label web-page__label--other-site">{t('webpages.otherSite', { host: hostOf(url) })}</li>
      </ul>
    );
  return (
    <section className="card a2a-about" aria-labelledby={titleId}>
      <h2 id={titleId} className="a2a-skills__title">
        {t('a2a.about.title')}
      </h2>
      <p className="web-pages__intro">{t('a2a.about.intro')}</p>
      <ul className="web-pages__list">
        {provider !== undefined ? (
          <li className="web-page">
            {provider.url === undefined ? (
              <p>{t('a2a.about.provider', { organization: provider.organization })}</p>
            ) : (
              <UntrustedLink api={api} url={provider.url} label={t('a2a.about.provider', { organization: provider.organization })}>
                {otherSite(provider.url)}
              </UntrustedLink>
            )}
          </li>
        ) : null}
        {documentationUrl !== undefined ? (
          <li className="web-page">
            <UntrustedLink api={api} url={documentationUrl} label={t('a2a.about.documentation')}>
              {otherSite(documentationUrl)}
            </UntrustedLink>
          </li>
        ) : null}
        {iconUrl !== undefined ? (
          <li className="web-page">
            <UntrustedLink api={api} url={iconUrl} label={t('a2a.about.icon')}>
              {otherSite(iconUrl)}
            </UntrustedLink>
            <p className="muted">{t('a2a.about.iconNotShown')}</p>
          </li>
        ) : null}
      </ul>
    </section>
  );
}
