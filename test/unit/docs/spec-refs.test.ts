import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { root } from '../../support/built';
import { repositoryFilesUnder } from '../../support/repository-files';

/**
 * A section sign names its specification: "Talkie 1 §10.4", not "§10.4". AgentDesk speaks four
 * protocols and cites RFCs, so a bare section leaves the reader to guess whose it is, and one without
 * the specs cannot check the guess. Checked: comments in code and CSS (strings are what users read, and
 * stay as they are), and every line of docs and data files. One name may carry a run of sections on
 * the same line ("Talkie 1 §3 errors, §6 cards"). The names and their addresses: docs/protocols.md.
 */

const specName = /Talkie 1|AgentCall 0\.1|AgentMesh UI links 0\.1|A2A(?: 1\.0)?|AG-UI(?: 1\.0)?|OAuth 2\.1|OpenID Connect Core(?: 1\.0)?|RFC \d{3,5}/g;
/** How far before a section sign its spec's name (or the previous section of the same run) may end. */
const reach = 40;

/** The columns of the section signs in `line` that no spec name precedes within `reach` characters. */
function bareSections(line: string): number[] {
  const named = [...line.matchAll(specName)].map((match) => match.index + match[0].length);
  const bare: number[] = [];
  let lastNamed = -Infinity;
  for (let at = line.indexOf('§'); at >= 0; at = line.indexOf('§', at + 1)) {
    if (named.some((end) => end <= at && at - end <= reach) || at - lastNamed <= reach) lastNamed = at;
    else bare.push(at);
  }
  return bare;
}

const code = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const prose = /\.(md|json|html|txt)$/;

/** [start, end) of each comment in a script that holds a section sign, found through TypeScript's own parse (so no string, regex or JSX text is taken for one). */
function scriptComments(file: string, text: string): [number, number][] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = new Map<number, number>();
  for (let at = text.indexOf('§'); at >= 0; at = text.indexOf('§', at + 1)) {
    // The innermost token around it: the sign is in a comment when it lies in that token's leading trivia.
    let token: ts.Node = source;
    for (let inner: ts.Node | undefined = source; inner; inner = inner.getChildren(source).find((child) => child.pos <= at && at < child.end)) token = inner;
    if (token.kind === ts.SyntaxKind.JsxText) continue;
    for (const range of [...(ts.getTrailingCommentRanges(text, token.pos) ?? []), ...(ts.getLeadingCommentRanges(text, token.pos) ?? [])]) {
      if (range.pos <= at && at < range.end) found.set(range.pos, range.end);
    }
  }
  return [...found];
}

/** What may be checked in a file: its comments for code and CSS, the whole text otherwise; undefined for files not checked. */
function checkedParts(file: string, text: string): [number, number][] | undefined {
  if (code.test(file)) return scriptComments(file, text);
  if (file.endsWith('.css')) return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((match) => [match.index, match.index + match[0].length]);
  if (prose.test(file)) return [[0, text.length]];
  return undefined;
}

/** `file:line: text` for each line of `text` with a bare section sign. */
function bareReferences(file: string, text: string): string[] {
  if (!text.includes('§')) return [];
  const parts = checkedParts(file, text);
  if (!parts) return [];
  const lines = text.split('\n');
  const bare = new Set<number>();
  for (const [start, end] of parts) {
    let lineStart = text.lastIndexOf('\n', start - 1) + 1;
    for (let index = text.slice(0, lineStart).split('\n').length - 1; lineStart < end; lineStart += lines[index]!.length + 1, index++) {
      // Only the part of the line inside the comment counts, so a name in code beside it does not.
      if (bareSections(lines[index]!.slice(Math.max(start - lineStart, 0), end - lineStart)).length > 0) bare.add(index);
    }
  }
  return [...bare].sort((a, b) => a - b).map((index) => `${file}:${index + 1}: ${lines[index]!.trim()}`);
}

const checked = [...['src', 'test', 'scripts', 'docs'].flatMap(repositoryFilesUnder), 'README.md', 'CONTRIBUTING.md'];

describe('section references name their specification', () => {
  it('no bare § in src/, test/, scripts/, docs/, README.md or CONTRIBUTING.md', () => {
    expect(checked.flatMap((file) => bareReferences(file, readFileSync(join(root, file), 'utf8')))).toEqual([]);
  });

  it('the check itself: a bare §, one named too far back and one in a comment beside code are caught; named runs and strings are not', () => {
    expect(bareSections('Talkie 1 §3 errors, §6 cards, §7 links and §8 actions')).toEqual([]);
    expect(bareSections('RFC 8252 §7.3 or the app scheme (§7.1)')).toEqual([]);
    expect(bareSections('(§10.4)')).toEqual([1]);
    expect(bareSections('Talkie §5')).toEqual([7]);
    expect(bareSections(`Talkie 1 ${'x'.repeat(reach + 1)}§9`)).toHaveLength(1);
    const script = [
      '/** Talkie 1 §6 cards. */',
      "const a = 'Talkie 1'; // §9",
      "const b = 'a string that says §3';",
      '/*',
      ' * The worked example (§11).',
      ' */',
      'const c = <p>{/* §4 labels */}</p>;',
    ].join('\n');
    expect(bareReferences('x.tsx', script)).toEqual([
      "x.tsx:2: const a = 'Talkie 1'; // §9",
      'x.tsx:5: * The worked example (§11).',
      'x.tsx:7: const c = <p>{/* §4 labels */}</p>;',
    ]);
    expect(bareReferences('x.css', '/* Cards (Talkie §6) */\n.card {}')).toEqual(['x.css:1: /* Cards (Talkie §6) */']);
    expect(bareReferences('x.md', 'Implements §1–§11.')).toEqual(['x.md:1: Implements §1–§11.']);
  });
});
