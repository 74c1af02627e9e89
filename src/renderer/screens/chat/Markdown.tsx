import type { ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import { LinkView } from './LinkView';

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
