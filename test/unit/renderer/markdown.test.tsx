import { cleanup, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChatEnvironmentContext } from '../../../src/renderer/components/ChatContext';
import { CopyButton } from '../../../src/renderer/components/CopyButton';
import { Markdown } from '../../../src/renderer/components/Markdown';
import { fail } from '../../../src/shared/base/errors';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

function clipboard(writeText: (text: string) => Promise<void>) {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
}

describe('Markdown: GitHub extras, code blocks, images as links', () => {
  it('renders GFM tables, task lists and strikethrough', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n- [ ] open\n\n~~gone~~'} />);
    expect([...container.querySelectorAll('th')].map((cell) => cell.textContent)).toEqual(['a', 'b']);
    expect([...container.querySelectorAll('td')].map((cell) => cell.textContent)).toEqual(['1', '2']);
    const boxes = [...container.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')];
    expect(boxes.map((box) => box.checked)).toEqual([true, false]);
    expect(boxes.every((box) => box.disabled)).toBe(true);
    expect(container.querySelector('del')?.textContent).toBe('gone');
  });

  it('labels a code block with its language and highlights it once the highlighter has loaded', async () => {
    const { container } = render(<Markdown text={'```js\nconst answer = 42;\n```'} />);
    expect(container.querySelector('.code-block__language')?.textContent).toBe('js');
    // Plain text first: all of the code is there before highlighting.
    expect(container.querySelector('pre code')?.textContent).toBe('const answer = 42;');
    await waitFor(() => expect(container.querySelector('pre code .hljs-keyword')?.textContent).toBe('const'));
    expect(container.querySelector('pre code')?.textContent).toBe('const answer = 42;');
    expect(container.querySelector('pre code .hljs-number')?.textContent).toBe('42');
  });

  it('keeps a block in an unknown language, or none, as plain text', async () => {
    const { container } = render(<Markdown text={'```nosuchlang\n<b>x</b>\n```\n\n```\nplain\n```'} />);
    const labels = [...container.querySelectorAll('.code-block__language')].map((label) => label.textContent);
    expect(labels).toEqual(['nosuchlang', 'Code']);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(container.querySelector('pre code span')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect(container.textContent).toContain('<b>x</b>');
  });

  it('copies a code block with its Copy button', async () => {
    const writeText = vi.fn(async (_text: string) => undefined);
    const user = userEvent.setup();
    // After setup(): user-event puts its own clipboard on navigator.
    clipboard(writeText);
    render(<Markdown text={'```py\nprint("hi")\n```'} />);
    await user.click(screen.getByRole('button', { name: 'Copy the py code' }));
    expect(writeText).toHaveBeenCalledWith('print("hi")');
    expect(await screen.findByText('Copied')).toBeTruthy();
  });

  it('shows an image only as a link to it, never loading it', () => {
    const openLink = vi.fn();
    const environment = { issuer: 'https://agent.example', serverName: 'Agent', openLink, downloadFile: async () => fail('internal', 'no') };
    const { container } = render(
      <ChatEnvironmentContext.Provider value={environment}>
        <Markdown text={'See ![the chart](https://agent.example/chart.png) and ![](javascript:alert(1))'} />
      </ChatEnvironmentContext.Provider>,
    );
    expect(container.querySelector('img')).toBeNull();
    const link = within(container).getByRole('link', { name: /Image: the chart/ });
    expect(link.getAttribute('href')).toBe('https://agent.example/chart.png');
    expect(within(container).getAllByRole('link')).toHaveLength(1);
    expect(container.textContent).toContain('Image');
  });
});

describe('CopyButton', () => {
  it('says when copying failed', async () => {
    const user = userEvent.setup();
    clipboard(async () => {
      throw new Error('denied');
    });
    render(<CopyButton text="x" label="Copy x" />);
    await user.click(screen.getByRole('button', { name: 'Copy x' }));
    expect(await screen.findByText('Could not copy')).toBeTruthy();
  });
});
