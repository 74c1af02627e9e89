import { describe, expect, it } from 'vitest';
import { splitSettledBlocks } from '../../../src/renderer/components/markdown-blocks';

describe('splitting streamed Markdown into settled blocks', () => {
  it('settles everything before the last blank line and keeps the growing end', () => {
    expect(splitSettledBlocks('First paragraph.\n\nSecond **bold**\n\nThird, still gro')).toEqual({
      settled: ['First paragraph.\n', 'Second **bold**\n'],
      tail: 'Third, still gro',
    });
  });

  it('never splits inside a fenced code block, even at blank lines', () => {
    const text = 'Intro\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter';
    expect(splitSettledBlocks(text)).toEqual({ settled: ['Intro\n', '```js\nconst a = 1;\n\nconst b = 2;\n```\n'], tail: 'After' });
    // An open fence keeps everything after it in the tail.
    expect(splitSettledBlocks('Intro\n\n~~~\nstill\n\ncode')).toEqual({ settled: ['Intro\n'], tail: '~~~\nstill\n\ncode' });
  });

  it('keeps a text without blank lines whole, and joins back to the same text', () => {
    expect(splitSettledBlocks('word0 word1 word2')).toEqual({ settled: [], tail: 'word0 word1 word2' });
    const text = '# Title\n\n- one\n- two\n\n\n> quote\n\nend';
    const { settled, tail } = splitSettledBlocks(text);
    expect(settled.length).toBe(3);
    expect(tail).toBe('end');
  });
});
