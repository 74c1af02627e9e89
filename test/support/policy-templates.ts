import { createRequire } from 'node:module';
import type { PolicyTree } from '../../src/shared/device-policy/policy-leaves';
import type { PolicyLeafWords } from '../../src/shared/device-policy/policy-template-words';
import { registryLocation } from '../../src/main/policy/registry-policy';

/** The little of the DOM these checks use (the Node side's types have no DOM). */
interface Element {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<Element> & Iterable<Element>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<Element> & Iterable<Element>;
  querySelectorAll(selector: string): ArrayLike<Element> & Iterable<Element>;
}
/** jsdom (a dev dependency; its types are not installed): a strict XML parser that is not the generator. */
const { JSDOM } = createRequire(import.meta.url)('jsdom') as {
  JSDOM: new (html: string) => { window: { DOMParser: new () => { parseFromString(text: string, type: string): Element } } };
};

/**
 * The checks a set of Windows templates must pass against a policy schema, read with an XML parser
 * that is not the generator (jsdom's, strict XML): well-formed; every key of the schema exactly one
 * policy, writing where the registry reader looks; its choices, range and length the schema's;
 * every string and presentation the ADMX names present in each ADML, and the Czech one translated.
 * An empty list means they pass.
 */
export function templateProblems(
  templates: { admx: string; adml: Record<string, string> },
  tree: PolicyTree,
  words: Record<string, PolicyLeafWords>,
): string[] {
  const problems: string[] = [];
  const { DOMParser } = new JSDOM('').window;
  const parse = (name: string, text: string) => {
    const document = new DOMParser().parseFromString(text, 'application/xml');
    const error = document.getElementsByTagName('parsererror')[0];
    if (error) problems.push(`${name}: not well-formed XML: ${error.textContent?.slice(0, 200)}`);
    return document;
  };
  const admx = parse('ADMX', templates.admx);
  const adml = Object.fromEntries(Object.entries(templates.adml).map(([language, text]) => [language, parse(`ADML ${language}`, text)]));
  if (problems.length > 0) return problems;

  const policies = [...admx.getElementsByTagName('policy')];
  // querySelectorAll, not querySelector: jsdom's querySelector misses some matches in XML documents (seen: null where querySelectorAll found one).
  const one = (element: Element, selector: string): Element | undefined => element.querySelectorAll(selector)[0];
  const used = new Set<Element>();
  const lower = (text: string | null) => (text ?? '').toLowerCase();
  for (const leaf of tree.leaves) {
    const location = registryLocation(leaf);
    const matches = policies.filter((policy) => {
      if ('list' in location) return [...policy.getElementsByTagName('list')].some((list) => lower(list.getAttribute('key')) === lower(location.key));
      if (lower(policy.getAttribute('key')) !== lower(location.key)) return false;
      if (leaf.kind === 'boolean') return lower(policy.getAttribute('valueName')) === lower(location.valueName);
      return [...policy.querySelectorAll('elements > *')].some((element) => lower(element.getAttribute('valueName')) === lower(location.valueName));
    });
    const where = 'list' in location ? `key ${location.key} (a list)` : `${location.key} value ${location.valueName}`;
    if (matches.length !== 1) {
      problems.push(`${leaf.key}: ${matches.length === 0 ? 'no policy writes' : `${matches.length} policies write`} ${where}`);
      continue;
    }
    const policy = matches[0]!;
    used.add(policy);
    const scope = words[leaf.key]?.perUser ? 'Both' : 'Machine';
    if (policy.getAttribute('class') !== scope) problems.push(`${leaf.key}: class ${policy.getAttribute('class')}, not ${scope}`);
    const element = one(policy, 'elements > *');
    switch (leaf.kind) {
      case 'boolean': {
        const on = one(policy, 'enabledValue > decimal')?.getAttribute('value');
        const off = one(policy, 'disabledValue > decimal')?.getAttribute('value');
        if (on !== '1' || off !== '0') problems.push(`${leaf.key}: enabled/disabled write ${on}/${off}, not 1/0`);
        break;
      }
      case 'integer':
        if (element?.tagName !== 'decimal') problems.push(`${leaf.key}: a ${element?.tagName}, not a decimal`);
        else if (element.getAttribute('minValue') !== String(leaf.minimum) || element.getAttribute('maxValue') !== String(leaf.maximum)) {
          problems.push(
            `${leaf.key}: the range ${element.getAttribute('minValue')}–${element.getAttribute('maxValue')}, not the schema's ${leaf.minimum}–${leaf.maximum}`,
          );
        }
        break;
      case 'enum': {
        const values = [...policy.querySelectorAll('enum > item > value > string')].map((value) => value.textContent);
        if (JSON.stringify(values) !== JSON.stringify(leaf.values))
          problems.push(`${leaf.key}: the choices ${values.join(', ')}, not the schema's ${leaf.values!.join(', ')}`);
        break;
      }
      case 'string':
        if (element?.tagName !== 'text') problems.push(`${leaf.key}: a ${element?.tagName}, not a text`);
        else if (element.getAttribute('maxLength') !== String(leaf.maxLength))
          problems.push(`${leaf.key}: the length ${element.getAttribute('maxLength')}, not the schema's ${leaf.maxLength}`);
        break;
      case 'list':
        if (element?.tagName !== 'list' || element.getAttribute('valuePrefix') !== '') problems.push(`${leaf.key}: not a list of values named 1, 2, 3 …`);
        break;
    }
  }
  for (const policy of policies) if (!used.has(policy)) problems.push(`the policy ${policy.getAttribute('name')} is no key of the schema`);

  // Strings and presentations.
  const references = (kind: 'string' | 'presentation') => [
    ...new Set([...templates.admx.matchAll(new RegExp(`\\$\\(${kind}\\.([^)]+)\\)`, 'g'))].map((match) => match[1]!)),
  ];
  const tables = Object.fromEntries(
    Object.entries(adml).map(([language, document]) => [
      language,
      {
        strings: new Map([...document.querySelectorAll('stringTable > string')].map((string) => [string.getAttribute('id')!, string.textContent ?? ''])),
        presentations: new Map(
          [...document.querySelectorAll('presentationTable > presentation')].map((presentation) => [presentation.getAttribute('id')!, presentation]),
        ),
      },
    ]),
  );
  for (const [language, table] of Object.entries(tables)) {
    for (const id of references('string')) if (!table.strings.get(id)?.trim()) problems.push(`ADML ${language}: no string ${id}`);
    for (const id of references('presentation')) {
      const presentation = table.presentations.get(id);
      if (!presentation) problems.push(`ADML ${language}: no presentation ${id}`);
      for (const control of presentation ? [...presentation.children] : []) {
        const policy = policies.find((candidate) => candidate.getAttribute('presentation') === `$(presentation.${id})`);
        if (!policy || !one(policy, `elements > [id="${control.getAttribute('refId')}"]`))
          problems.push(`ADML ${language}: presentation ${id} shows ${control.getAttribute('refId')}, no element of its policy`);
      }
    }
  }
  const [first, ...others] = Object.entries(tables);
  for (const [language, table] of others) {
    const missing = [...first![1].strings.keys()].filter((id) => !table.strings.has(id));
    const extra = [...table.strings.keys()].filter((id) => !first![1].strings.has(id));
    if (missing.length > 0 || extra.length > 0)
      problems.push(`ADML ${language}: strings differ from ${first![0]} (missing ${missing.join(', ') || 'none'}; extra ${extra.join(', ') || 'none'})`);
  }
  const czech = tables['cs-CZ'];
  const english = tables['en-US'];
  if (czech && english) {
    for (const [id, text] of english.strings)
      if (id.endsWith('_Explain') && czech.strings.get(id) === text) problems.push(`ADML cs-CZ: ${id} is the English text`);
  }
  return problems;
}
