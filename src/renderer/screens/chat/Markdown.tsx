import { memo, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
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

const components: Components = {
  a: ({ href, children }) => <LinkView url={href}>{children}</LinkView>,
  h1: Heading,
  h2: Heading,
  h3: Heading,
  h4: Heading,
  h5: Heading,
  h6: Heading,
};

/**
 * Talkie §7 Markdown: no rehype-raw, so raw HTML stays literal text; images are dropped (their
 * element is unwrapped: it has no children); links only through LinkView / safeLink.
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown disallowedElements={['img']} unwrapDisallowed components={components}>
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
