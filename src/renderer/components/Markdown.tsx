import type { Element, ElementContent } from 'hast';
import { memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { useI18n } from '../i18n/I18nProvider';
import { CodeBlock } from './CodeBlock';
import { LinkView } from './LinkView';
import { splitSettledBlocks } from './markdown-blocks';

/** Headings inside a message would break the page outline; they become bold paragraphs. */
function Heading({ children }: { children?: ReactNode }) {
  return (
    <p className="markdown__heading">
      <strong>{children}</strong>
    </p>
  );
}

/** An image is never loaded: it becomes a link to it (through LinkView, like any link), named by its alt text. */
function ImageLink({ src, alt }: { src?: string | Blob; alt?: string }) {
  const { t } = useI18n();
  const name = alt?.trim() ? t('markdown.imageNamed', { name: alt.trim() }) : t('markdown.image');
  return <LinkView url={typeof src === 'string' ? src : undefined}>{name}</LinkView>;
}

function textOf(nodes: readonly ElementContent[]): string {
  return nodes.map((node) => (node.type === 'text' ? node.value : node.type === 'element' ? textOf(node.children) : '')).join('');
}

/** A fence's language ("```ts"), when it is a plain name short enough to be a label. */
function languageOf(code: Element): string | undefined {
  const classes = code.properties.className;
  const names = Array.isArray(classes) ? classes : [];
  for (const name of names) {
    const match = typeof name === 'string' ? /^language-([\w+#.-]{1,32})$/.exec(name) : null;
    if (match?.[1]) return match[1];
  }
  return undefined;
}

/** A fenced or indented code block (`pre` > `code`) becomes a CodeBlock; inline `code` stays as it is. */
function Pre({ node, children }: { node?: Element; children?: ReactNode }) {
  const code = node?.children.find((child): child is Element => child.type === 'element' && child.tagName === 'code');
  if (!code) return <pre>{children}</pre>;
  return <CodeBlock code={textOf(code.children).replace(/\n$/, '')} language={languageOf(code)} />;
}

const components: Components = {
  a: ({ href, children }) => <LinkView url={href}>{children}</LinkView>,
  img: ({ src, alt }) => <ImageLink src={src} alt={alt} />,
  pre: Pre,
  table: ({ children }) => (
    <div className="markdown__table">
      <table>{children}</table>
    </div>
  ),
  h1: Heading,
  h2: Heading,
  h3: Heading,
  h4: Heading,
  h5: Heading,
  h6: Heading,
};

const remarkPlugins = [remarkGfm];

/**
 * Talkie 1 §7 Markdown, with GitHub's tables, task lists and strikethrough (remark-gfm): no
 * rehype-raw, so raw HTML stays literal text; an image is never loaded, only shown as a link to it;
 * links only through LinkView / safeLink; code blocks with a language label, Copy and (lazily loaded)
 * highlighting. The one Markdown of every screen (Talkie, AgentCall, AG-UI).
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}

/** Above this many characters, the growing end of a streamed reply is shown as plain text until the reply ends. */
export const streamingTailMarkdownChars = 2_000;

const SettledBlock = memo(Markdown);

/**
 * Markdown for a reply that is still streaming: its settled blocks (before the last blank line
 * outside code) are parsed once and kept, and only the growing end is parsed again on each
 * update; a very long last paragraph is shown as plain text until the reply ends, when the whole
 * reply is rendered with `Markdown` again. Keeps a long reply from re-parsing everything per frame.
 */
export function StreamingMarkdown({ text }: { text: string }) {
  const { settled, tail } = splitSettledBlocks(text);
  return (
    <div className="markdown-stream">
      {settled.map((block, index) => (
        <SettledBlock key={index} text={block} />
      ))}
      {tail.length > streamingTailMarkdownChars ? (
        <div className="markdown">
          <p className="markdown__plain">{tail}</p>
        </div>
      ) : (
        <Markdown text={tail} />
      )}
    </div>
  );
}
