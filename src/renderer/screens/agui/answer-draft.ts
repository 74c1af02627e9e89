import { cloneJson, prettyJson, type JsonObject, type JsonValue } from '../../../shared/agui/json-values';
import { formLimits, initialAnswer, type AnswerSuggestions, type FormField, type ResponseForm } from '../../../shared/agui/response-form';

/**
 * What the user has typed into one interrupt's form, by field (its JSON pointer in the answer):
 * text, number and JSON fields as the text typed, checkboxes as booleans, choice groups as lists.
 * Turned into the form's values (`toAnswer`) only when the answers are sent, then into the answer
 * (settleAnswer: only what the user set) and checked with validateAnswer.
 */
export type DraftValue = string | boolean | string[];
export type Draft = Readonly<Record<string, DraftValue>>;

/** Every field of the form, depth first (objects before their fields). */
export function fieldsOf(field: FormField): FormField[] {
  return field.kind === 'object' ? [field, ...field.fields.flatMap(fieldsOf)] : [field];
}

function valueAt(answer: JsonValue | undefined, field: FormField, root: FormField): JsonValue | undefined {
  if (field === root) return answer;
  // Walk from the root by keys: the answer mirrors the form's objects.
  const trail: FormField[] = [];
  const find = (current: FormField): boolean => {
    if (current === field) return true;
    if (current.kind !== 'object') return false;
    for (const child of current.fields) {
      trail.push(child);
      if (find(child)) return true;
      trail.pop();
    }
    return false;
  };
  if (!find(root)) return undefined;
  let value: JsonValue | undefined = answer;
  for (const step of trail) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, step.key)) return undefined;
    value = (value as JsonObject)[step.key];
  }
  return value;
}

/** The starting draft: the schema's defaults and the agent's suggestions (initialAnswer), as the fields show them. */
export function initialDraft(form: ResponseForm, suggestions: AnswerSuggestions = {}): Draft {
  const answer = initialAnswer(form, suggestions);
  const draft: Record<string, DraftValue> = {};
  for (const field of fieldsOf(form.root)) {
    const value = valueAt(answer, field, form.root);
    switch (field.kind) {
      case 'string':
        draft[field.path] = typeof value === 'string' ? value : '';
        break;
      case 'number':
        draft[field.path] = typeof value === 'number' ? String(value) : '';
        break;
      case 'boolean':
        draft[field.path] = value === true;
        break;
      case 'choices':
        draft[field.path] = Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
        break;
      case 'json':
        draft[field.path] = value === undefined ? '' : (prettyJson(value, formLimits.stringChars) ?? '');
        break;
      case 'object':
        break;
    }
  }
  return draft;
}

/**
 * The answer the draft stands for. An empty optional field is left out; an empty required one is
 * left out too (object fields) so the validator says it is required; a number that does not parse
 * stays text so the validator says it must be a number.
 */
export function toAnswer(field: FormField, draft: Draft): JsonValue | undefined {
  const raw = draft[field.path];
  switch (field.kind) {
    case 'string': {
      const text = typeof raw === 'string' ? raw : '';
      if (text !== '') return text;
      return field.path === '' ? '' : undefined;
    }
    case 'number': {
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') return undefined;
      const number = Number(text);
      return Number.isFinite(number) ? number : text;
    }
    case 'boolean':
      return raw === true;
    case 'choices':
      return Array.isArray(raw) ? [...raw] : [];
    case 'json': {
      // Text that does not parse stays text, so the validator says it must be a JSON object.
      const text = typeof raw === 'string' ? raw.trim() : '';
      if (text === '') return undefined;
      try {
        return cloneJson(JSON.parse(text) as unknown) ?? text;
      } catch {
        return text;
      }
    }
    case 'object': {
      const out: JsonObject = {};
      for (const child of field.fields) {
        const value = toAnswer(child, draft);
        if (value !== undefined) Object.defineProperty(out, child.key, { value, writable: true, enumerable: true, configurable: true });
      }
      return out;
    }
  }
}
