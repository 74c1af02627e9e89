import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Markdown, StreamingMarkdown, streamingTailMarkdownChars } from '../../../src/renderer/components/Markdown';

afterEach(() => cleanup());

describe('Markdown while a reply streams', () => {
  it('renders settled blocks and a short growing end as Markdown', () => {
    const { container } = render(<StreamingMarkdown text={'**Settled** block\n\n- one\n- tw'} />);
    expect(container.querySelector('strong')?.textContent).toBe('Settled');
    expect([...container.querySelectorAll('li')].map((item) => item.textContent)).toEqual(['one', 'tw']);
  });

  it('shows a very long last paragraph as plain text until the reply ends, then as Markdown', () => {
    const long = `**bold** ${'word '.repeat(streamingTailMarkdownChars / 5)}`;
    const streaming = render(<StreamingMarkdown text={`Intro\n\n${long}`} />);
    expect(streaming.container.querySelector('strong')).toBeNull();
    expect(streaming.container.querySelector('.markdown__plain')?.textContent).toBe(long);
    streaming.unmount();
    const done = render(<Markdown text={`Intro\n\n${long}`} />);
    expect(done.container.querySelector('strong')?.textContent).toBe('bold');
  });

  it('keeps raw HTML as text in every part', () => {
    const { container } = render(<StreamingMarkdown text={'<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>'} />);
    expect(container.querySelector('script')).toBeNull();
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toContain('<script>alert(1)</script>');
  });
});
