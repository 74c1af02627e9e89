import { usePolicyView } from '../../../kiosk/policy-context';
import { useId, useState } from 'react';
import type { IpcError } from '../../../../shared/base/errors';
import { ErrorText } from '../../../components/ErrorText';
import type { Card, CardBlock } from '../../../../shared/talkie/content';
import { useI18n } from '../../../i18n/I18nProvider';
import { useChatEnvironment } from '../../../components/ChatContext';
import { formatFileSize } from '../../../components/format';
import { linkTarget, LinkView } from '../../../components/LinkView';
import { Markdown } from '../../../components/Markdown';

/**
 * A Talkie 1 §6 card. Never HTML: every value is text, `text` blocks are the same Markdown as
 * messages, links go through LinkView. Without blocks (one could not be rendered) the card shows
 * its fallbackText instead.
 */
export function CardView({ card }: { card: Card }) {
  const id = useId();
  const titleId = `${id}-title`;
  const named = card.a11yLabel !== undefined && card.a11yLabel.trim() !== '';
  return (
    <article className="talkie-card" aria-label={named ? card.a11yLabel : undefined} aria-labelledby={!named && card.title !== undefined ? titleId : undefined}>
      {card.title !== undefined ? (
        <h3 id={titleId} className="talkie-card__title">
          {card.url !== undefined ? <LinkView url={card.url}>{card.title}</LinkView> : card.title}
        </h3>
      ) : null}
      {card.subtitle !== undefined ? <p className="talkie-card__subtitle">{card.subtitle}</p> : null}
      {card.blocks === undefined ? (
        <p className="talkie-card__fallback">{card.fallbackText}</p>
      ) : (
        card.blocks.map((block, index) => <Block key={index} block={block} />)
      )}
    </article>
  );
}

function Block({ block }: { block: CardBlock }) {
  const { t } = useI18n();
  switch (block.type) {
    case 'heading':
      return <h4 className="talkie-card__heading">{block.text}</h4>;
    case 'text':
      return <Markdown text={block.text} />;
    case 'fields':
      return (
        <dl className="talkie-card__fields">
          {block.fields.map((field, index) => (
            <div key={index} className="talkie-card__field">
              <dt>{field.label}</dt>
              <dd>{field.value}</dd>
            </div>
          ))}
        </dl>
      );
    case 'list':
      return (
        <div className="talkie-card__list-block">
          <ul className="talkie-card__list">
            {block.items.map((item, index) => (
              <li key={index} className="talkie-card__list-item">
                <span className="talkie-card__list-title">{item.url !== undefined ? <LinkView url={item.url}>{item.title}</LinkView> : item.title}</span>
                {item.subtitle !== undefined ? <span className="talkie-card__list-subtitle">{item.subtitle}</span> : null}
              </li>
            ))}
          </ul>
          {block.more !== undefined && block.more > 0 ? <p className="talkie-card__more">{t('chat.card.more', { count: block.more })}</p> : null}
        </div>
      );
    case 'link':
      return (
        <p className="talkie-card__link">
          <LinkView url={block.url}>{block.label}</LinkView>
        </p>
      );
    case 'file':
      return <FileBlock block={block} />;
    case 'badge':
      return <p className={`badge badge--${block.tone ?? 'neutral'}`}>{block.text}</p>;
  }
}

function FileBlock({ block }: { block: Extract<CardBlock, { type: 'file' }> }) {
  const { t, language } = useI18n();
  const { issuer, openLink, downloadFile } = useChatEnvironment();
  // A kiosk neither downloads (main refuses it) nor opens files in a browser: the file is listed.
  const { kiosk } = usePolicyView();
  const id = useId();
  const nameId = `${id}-name`;
  const target = linkTarget(block.url, issuer);
  const details = [block.mime, block.size !== undefined ? formatFileSize(block.size, language) : undefined].filter((part) => part !== undefined);
  // Same-origin files are downloaded through main with the user's token; other files open in the browser without it.
  const external = target.kind === 'open' && new URL(target.href).origin !== issuer;
  const [state, setState] = useState<
    { kind: 'idle' } | { kind: 'downloading'; received: number; total?: number } | { kind: 'saved'; path: string } | { kind: 'error'; error: IpcError }
  >({ kind: 'idle' });

  const download = () => {
    setState({ kind: 'downloading', received: 0 });
    void downloadFile({ url: block.url, name: block.name }, (received, total) =>
      setState(total === undefined ? { kind: 'downloading', received } : { kind: 'downloading', received, total }),
    ).then((result) => {
      if (!result.ok) setState({ kind: 'error', error: result.error });
      else if (result.value.saved && result.value.path) setState({ kind: 'saved', path: result.value.path });
      else setState({ kind: 'idle' });
    });
  };

  return (
    <div className="talkie-card__file">
      <div className="talkie-card__file-text">
        <span id={nameId} className="talkie-card__file-name">
          {block.name}
        </span>
        {details.length > 0 ? <span className="talkie-card__file-details">{details.join(' · ')}</span> : null}
      </div>
      {kiosk ? null : external ? (
        <button
          type="button"
          className="button button--secondary"
          aria-label={t('chat.card.openFileNamed', { name: block.name })}
          onClick={() => openLink(target.href)}
        >
          {t('chat.card.openFile')}
        </button>
      ) : target.kind === 'none' ? null : (
        <>
          <button
            type="button"
            className="button button--secondary"
            disabled={state.kind === 'downloading'}
            aria-label={t('chat.card.downloadNamed', { name: block.name })}
            onClick={download}
          >
            {state.kind === 'downloading' ? t('chat.card.downloading') : t('chat.card.download')}
          </button>
          <span className="talkie-card__file-note" role="status">
            {state.kind === 'downloading' && state.total
              ? t('chat.card.downloadProgress', { percent: String(Math.min(100, Math.round((state.received / state.total) * 100))) })
              : state.kind === 'saved'
                ? t('chat.card.downloadSaved', { path: state.path })
                : ''}
          </span>
          {state.kind === 'error' ? <ErrorText error={state.error} /> : null}
        </>
      )}
    </div>
  );
}
