import { getOwn, isPlainObject, prettyJson, truncate } from './json-values';

/**
 * CUSTOM events are the protocol's extension point: a consumer renders the namespaces it knows
 * and ignores the rest (AG-UI 1.0; the iac-code adapter says a generic client may ignore its
 * `iac-code.pipeline.v1` events without losing text, tools, interrupts or the run lifecycle).
 *
 * A namespace matches a CUSTOM `name` equal to it or starting with it followed by ".", "/" or ":".
 * A renderer returns plain strings only (never HTML) or undefined when the value is malformed.
 */
export interface CustomRendering {
  /** Items with the same key replace each other (a progress entry updated in place). */
  key?: string;
  title: string;
  text?: string;
  /** Pretty JSON of the value, bounded, for an "details" disclosure. */
  json?: string;
}

export interface CustomNamespace {
  namespace: string;
  /** What the UI calls this source. */
  label: string;
  render(name: string, value: unknown): CustomRendering | undefined;
}

export const customLimits = { titleChars: 200, textChars: 4_000, jsonChars: 8_000, keyChars: 200 } as const;

function stringAt(value: unknown, key: string): string | undefined {
  if (!isPlainObject(value)) return undefined;
  const field = getOwn(value, key);
  return typeof field === 'string' && field.trim() !== '' ? field : undefined;
}

/** iac-code pipeline information without a standard AG-UI equivalent (candidates, stack progress, cleanup). */
const iacCodePipeline: CustomNamespace = {
  namespace: 'iac-code.pipeline.v1',
  label: 'Pipeline',
  render(name, value) {
    if (!isPlainObject(value)) return undefined;
    const suffix = name.slice('iac-code.pipeline.v1'.length).replace(/^[./:]/, '');
    const title = stringAt(value, 'title') ?? stringAt(value, 'kind') ?? stringAt(value, 'type') ?? (suffix || 'Pipeline');
    const text = stringAt(value, 'message') ?? stringAt(value, 'summary') ?? stringAt(value, 'status');
    const id = stringAt(value, 'id') ?? stringAt(value, 'stackName') ?? stringAt(value, 'stepId');
    const json = prettyJson(value, customLimits.jsonChars);
    return {
      ...(id === undefined ? {} : { key: truncate(`${suffix}:${id}`, customLimits.keyChars) }),
      title: truncate(title, customLimits.titleChars),
      ...(text === undefined ? {} : { text: truncate(text, customLimits.textChars) }),
      ...(json === undefined ? {} : { json: truncate(json, customLimits.jsonChars) }),
    };
  },
};

/** AgentDesk's own notices (the demo agent uses it): `{ text, title?, id? }`. */
const agentdeskNote: CustomNamespace = {
  namespace: 'agentdesk.note.v1',
  label: 'Note',
  render(_name, value) {
    const text = stringAt(value, 'text');
    if (text === undefined) return undefined;
    const id = stringAt(value, 'id');
    return {
      ...(id === undefined ? {} : { key: truncate(id, customLimits.keyChars) }),
      title: truncate(stringAt(value, 'title') ?? 'Note', customLimits.titleChars),
      text: truncate(text, customLimits.textChars),
    };
  },
};

export const knownCustomNamespaces: readonly CustomNamespace[] = [iacCodePipeline, agentdeskNote];

export function findCustomNamespace(name: string, registry: readonly CustomNamespace[] = knownCustomNamespaces): CustomNamespace | undefined {
  return registry.find((entry) => name === entry.namespace || (name.startsWith(entry.namespace) && /^[./:]/.test(name.slice(entry.namespace.length))));
}
