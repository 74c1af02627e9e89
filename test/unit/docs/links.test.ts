import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root } from '../../support/built';
import { repositoryFilesUnder } from '../../support/repository-files';

/**
 * The docs stay inside the repository: every relative link in README.md, CONTRIBUTING.md and docs/*.md
 * names a file that is here (and, for a Markdown file, a heading that is there when the link has an
 * anchor), and nothing points at the specs and notes folder beside the repository (`../shared`),
 * which a newcomer does not have: specs are cited by public name and URL (docs/protocols.md).
 */

const pages = [
  'README.md',
  'CONTRIBUTING.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped except - and _, spaces to -. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_~]|<[^>]*>/g, (match) => (match === '_' ? '_' : ''))
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code fences), with GitHub's -1, -2 for repeats. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = slug(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/** Markdown links and images `[text](target)` outside code fences and inline code, with their line. */
function links(markdown: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    if (/^\s*(```|~~~)/.test(text)) fenced = !fenced;
    if (fenced) return;
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const match of outsideCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ target: match[1]!, line: index + 1 });
  });
  return found;
}

/** What is wrong with one relative link from `page` (a repository path, its text `markdown`), or undefined when it resolves. */
function brokenLink(page: string, target: string, markdown: string, repository = root): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:: public addresses
  const [path, anchor] = target.split('#', 2) as [string, string | undefined];
  if (path === '') return anchor === undefined || anchors(markdown).has(anchor) ? undefined : `${target}: no heading #${anchor} in ${page}`;
  const file = resolve(repository, dirname(page), decodeURIComponent(path));
  const inRepository = relative(repository, file);
  if (inRepository.startsWith('..')) return `${target} leaves the repository`;
  if (!existsSync(file)) return `${target}: no file ${inRepository}`;
  if (anchor !== undefined && file.endsWith('.md') && statSync(file).isFile() && !anchors(readFileSync(file, 'utf8')).has(anchor))
    return `${target}: no heading #${anchor} in ${inRepository}`;
  return undefined;
}

function problemsOf(page: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const { target, line } of links(markdown)) {
    const problem = brokenLink(page, target, markdown);
    if (problem !== undefined) problems.push(`${page}:${line}: ${problem}`);
  }
  return problems;
}

describe('the docs', () => {
  it.each(pages)('%s: every relative link names a file here, and its anchor a heading', (page) => {
    expect(problemsOf(page, readFileSync(join(root, page), 'utf8'))).toEqual([]);
  });

  it('the link check itself: a missing file, a missing heading and a path out of the repository are caught', () => {
    const markdown = [
      '# Title',
      '',
      '## A heading, with `code`',
      '',
      '[ok](#a-heading-with-code) [ok](docs/cli.md#agentdesk-demo) [web](https://example.com/x)',
      '[gone](docs/no-such-page.md) [bad anchor](CONTRIBUTING.md#no-such-heading) [out](../shared/specs/x.md)',
      '```',
      '[in code](nowhere.md)',
      '```',
    ].join('\n');
    expect(problemsOf('README.md', markdown)).toEqual([
      'README.md:6: docs/no-such-page.md: no file docs/no-such-page.md',
      'README.md:6: CONTRIBUTING.md#no-such-heading: no heading #no-such-heading in CONTRIBUTING.md',
      'README.md:6: ../shared/specs/x.md leaves the repository',
    ]);
    expect(problemsOf('README.md', markdown.replace('#a-heading-with-code', '#a-heading'))).toContain(
      'README.md:5: #a-heading: no heading #a-heading in README.md',
    );
  });

  it('every docs/….md#anchor a comment in src/ or test/ names is a file and a heading here', () => {
    const problems: string[] = [];
    for (const file of [...repositoryFilesUnder('src'), ...repositoryFilesUnder('test')].filter(
      (name) => /\.(ts|tsx|css|mjs)$/.test(name) && name !== 'test/unit/docs/links.test.ts',
    )) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((text, index) => {
          for (const match of text.matchAll(/(?<![\w/.])(docs\/[\w-]+\.md(?:#[\w-]+)?)/g)) {
            const problem = brokenLink('README.md', match[1]!, '');
            if (problem !== undefined) problems.push(`${file}:${index + 1}: ${problem}`);
          }
        });
    }
    expect(problems).toEqual([]);
  });

  it('nothing in README.md, CONTRIBUTING.md, docs/ or src/ points at ../shared (the specs and notes beside the repository)', () => {
    const offenders: string[] = [];
    for (const page of pages) if (readFileSync(join(root, page), 'utf8').includes('../shared')) offenders.push(page);
    // In src, '../../shared/…' is an import of src/shared: what must not appear is the folder beside the repository.
    for (const file of repositoryFilesUnder('src')) {
      const text = readFileSync(join(root, file), 'utf8');
      if (/(?<![./\w])\.\.\/shared\/(specs|notes)\b|shared\/(specs|notes)\/[\w.-]+\.md/.test(text)) offenders.push(file);
    }
    expect(offenders).toEqual([]);
  });
});
