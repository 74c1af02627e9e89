import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { useEffect, useState, type ReactNode } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { useI18n } from '../i18n/I18nProvider';
import { CopyButton } from './CopyButton';
import { loadHighlighter } from './highlight-loader';

/**
 * A fenced code block: its language as a label, a Copy button, and syntax highlighting when the
 * language is one lowlight knows. The highlighter is loaded the first time a block with a language
 * renders; until then (and for unknown languages) the code is plain text. lowlight's tree holds only
 * `span`s with classes and text, rendered as React elements (never as HTML).
 */
export function CodeBlock({ code, language }: { code: string; language: string | undefined }) {
  const { t } = useI18n();
  const [highlighted, setHighlighted] = useState<{ code: string; language: string; nodes: ReactNode } | undefined>(undefined);

  useEffect(() => {
    if (language === undefined) return;
    let live = true;
    loadHighlighter().then(
      (highlight) => {
        const tree = highlight(code, language);
        if (live && tree) setHighlighted({ code, language, nodes: toJsxRuntime(tree, { Fragment, jsx, jsxs }) });
      },
      // The chunk could not be loaded: the code stays plain text, which is still all of it.
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [code, language]);

  const current = highlighted && highlighted.code === code && highlighted.language === language ? highlighted.nodes : undefined;
  return (
    <div className="code-block">
      <div className="code-block__bar">
        <span className="code-block__language">{language ?? t('markdown.code')}</span>
        <CopyButton text={code} label={language ? t('markdown.copyCodeIn', { language }) : t('markdown.copyCode')} />
      </div>
      <pre>
        <code className={language ? `hljs language-${language}` : undefined}>{current ?? code}</code>
      </pre>
    </div>
  );
}
