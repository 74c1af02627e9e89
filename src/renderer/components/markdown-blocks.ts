/**
 * Splitting streamed Markdown so that only its growing end is parsed again on every update:
 * `splitSettledBlocks` cuts the text at blank lines that are outside fenced code blocks; every
 * block but the last is settled (later text cannot change how it renders, except for rare
 * constructs such as reference-style link definitions further down, which the full render at the
 * end of the stream restores).
 */
export function splitSettledBlocks(text: string): { settled: string[]; tail: string } {
  const settled: string[] = [];
  let start = 0;
  let fence: string | undefined;
  let lineStart = 0;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
    } else if (fence === undefined && line.trim() === '' && lineStart > start && newline !== -1) {
      const block = text.slice(start, lineStart);
      if (block.trim() !== '') settled.push(block);
      start = newline + 1;
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return { settled, tail: text.slice(start) };
}
