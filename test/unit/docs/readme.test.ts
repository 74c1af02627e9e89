import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The README stays true about what can be run: every npm script a person runs is named in it. A merge
 * once dropped the benchmark paragraph that named bench:voice and bench:voice-page, and nothing noticed.
 */
const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const scripts = Object.keys(
  (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts,
);
/** Run by npm itself or by another script, never by hand. */
const internal = new Set(['prepare', 'webshell']);

describe('README', () => {
  it.each(scripts.filter((name) => !internal.has(name)))('names `npm run %s`', (name) => {
    const forms = [`npm run ${name}`, ...(name === 'start' || name === 'test' ? [`npm ${name}`] : [])];
    expect(
      forms.some((form) => new RegExp(`${form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w:-])`).test(readme)),
      `README names none of ${forms.join(', ')}`,
    ).toBe(true);
  });
});
