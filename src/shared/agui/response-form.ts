import { pointer, type Problem } from '../talkie/problems';
import { parsePointer } from './json-patch';
import { cloneJson, getOwn, isJsonObject, isPlainObject, jsonEqual, measureJson, setOwn, truncate, type JsonObject, type JsonValue } from './json-values';

/**
 * An interrupt's `responseSchema` (a JSON Schema, carried opaquely by AG-UI) → form-field
 * descriptors the renderer draws, and a validator for the user's answer against them.
 *
 * Supported: string (with enum/const, format email/uri/date/date-time/time, minLength/maxLength),
 * number and integer (minimum/maximum, exclusive bounds), boolean, an object of those (nested up to
 * `formLimits.objectDepth`), an array of enum strings (a multiple choice), and a nested object
 * without `properties` (any JSON object, e.g. pydantic-ai's `editedArgs`), edited as JSON text. Only local `$ref`s
 * (`#/$defs/…`, `#/definitions/…`) are followed — never a remote one. `pattern` is not enforced
 * (an agent-supplied regular expression could take unbounded time) and other keywords are ignored;
 * combinators (oneOf/anyOf/allOf/not/if) make the schema unsupported, and the UI then offers only
 * Cancel for that interrupt. Everything is bounded (`formLimits`).
 */
export type StringFormat = 'email' | 'uri' | 'date' | 'date-time' | 'time';

interface FieldBase {
  /** The property name in the parent object; "" for the root. */
  key: string;
  /** JSON pointer of the value in the answer ("" for the root). */
  path: string;
  label: string;
  description?: string;
  required: boolean;
}

export type FormField =
  | (FieldBase & { kind: 'string'; enum?: string[]; format?: StringFormat; minLength?: number; maxLength?: number; default?: string })
  | (FieldBase & {
      kind: 'number';
      integer: boolean;
      minimum?: number;
      maximum?: number;
      exclusiveMinimum?: number;
      exclusiveMaximum?: number;
      default?: number;
    })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & { kind: 'choices'; options: string[]; minItems?: number; maxItems?: number; uniqueItems: boolean; default?: string[] })
  | (FieldBase & { kind: 'object'; fields: FormField[]; additionalProperties: boolean })
  /** A nested object the schema does not describe (no `properties`): any JSON object, edited as JSON. */
  | (FieldBase & { kind: 'json'; default?: JsonObject });

export interface ResponseForm {
  title?: string;
  description?: string;
  root: FormField;
}

export type FormResult = { ok: true; form: ResponseForm } | { ok: false; problems: Problem[] };

export const formLimits = {
  schemaChars: 32_768,
  schemaDepth: 16,
  fields: 50,
  objectDepth: 3,
  options: 100,
  optionChars: 200,
  labelChars: 200,
  descriptionChars: 1_000,
  refResolutions: 32,
  answerChars: 65_536,
  answerDepth: 8,
  stringChars: 20_000,
} as const;

const formats: readonly StringFormat[] = ['email', 'uri', 'date', 'date-time', 'time'];
const combinators = ['oneOf', 'anyOf', 'allOf', 'not', 'if'];

class SchemaProblem {
  constructor(readonly problem: Problem) {}
}

export function describeResponseSchema(schema: unknown): FormResult {
  if (!isPlainObject(schema)) return { ok: false, problems: [{ code: 'schema_not_object', path: '', message: 'A response schema must be a JSON object.' }] };
  const measure = measureJson(schema, { maxDepth: formLimits.schemaDepth, maxChars: formLimits.schemaChars });
  if (!measure.ok) return { ok: false, problems: [{ code: 'schema_too_large', path: '', message: `The response schema is ${measure.message}.` }] };
  const context = { root: schema, fieldCount: 0, refs: 0 };
  try {
    const root = describeField(context, schema, [], '', true, 0);
    const title = stringOf(schema, 'title');
    const description = stringOf(schema, 'description');
    return {
      ok: true,
      form: {
        ...(title === undefined ? {} : { title: truncate(title, formLimits.labelChars) }),
        ...(description === undefined ? {} : { description: truncate(description, formLimits.descriptionChars) }),
        root,
      },
    };
  } catch (error) {
    if (error instanceof SchemaProblem) return { ok: false, problems: [error.problem] };
    throw error;
  }
}

interface DescribeContext {
  root: Record<string, unknown>;
  fieldCount: number;
  refs: number;
}

function fail(code: string, segments: readonly (string | number)[], message: string): never {
  throw new SchemaProblem({ code, path: pointer(segments), message });
}

function stringOf(schema: Record<string, unknown>, key: string): string | undefined {
  const value = getOwn(schema, key);
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function numberOf(schema: Record<string, unknown>, key: string, segments: readonly (string | number)[]): number | undefined {
  const value = getOwn(schema, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) fail('schema_invalid', [...segments, key], `"${key}" must be a number.`);
  return value;
}

function countOf(schema: Record<string, unknown>, key: string, segments: readonly (string | number)[]): number | undefined {
  const value = numberOf(schema, key, segments);
  if (value !== undefined && (!Number.isInteger(value) || value < 0)) fail('schema_invalid', [...segments, key], `"${key}" must be a non-negative integer.`);
  return value;
}

function resolveRef(context: DescribeContext, schema: Record<string, unknown>, segments: readonly (string | number)[]): Record<string, unknown> {
  let current = schema;
  while (Object.hasOwn(current, '$ref')) {
    const ref = getOwn(current, '$ref');
    if (typeof ref !== 'string' || !ref.startsWith('#')) fail('schema_remote_ref', [...segments, '$ref'], 'Only local references ("#/$defs/…") are followed.');
    context.refs += 1;
    if (context.refs > formLimits.refResolutions) fail('schema_ref_loop', [...segments, '$ref'], 'The schema follows too many references (a loop?).');
    const tokens = parsePointer(decodeURIComponentSafe(ref.slice(1)), formLimits.schemaDepth);
    if (!Array.isArray(tokens)) fail('schema_invalid_ref', [...segments, '$ref'], `"${ref.slice(0, 80)}" is not a JSON pointer.`);
    let target: unknown = context.root;
    for (const token of tokens) target = isPlainObject(target) ? getOwn(target, token) : undefined;
    if (!isPlainObject(target)) fail('schema_invalid_ref', [...segments, '$ref'], `"${ref.slice(0, 80)}" does not point to a schema in this document.`);
    current = target;
  }
  return current;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function typeOf(schema: Record<string, unknown>, segments: readonly (string | number)[]): string {
  const declared = getOwn(schema, 'type');
  if (typeof declared === 'string') return declared;
  if (Array.isArray(declared)) {
    const nonNull = declared.filter((entry) => entry !== 'null');
    if (nonNull.length === 1 && typeof nonNull[0] === 'string') return nonNull[0];
    fail('schema_unsupported', [...segments, 'type'], 'A field may have one type (optionally with "null").');
  }
  if (declared !== undefined) fail('schema_invalid', [...segments, 'type'], '"type" must be a string.');
  const enumValues = getOwn(schema, 'enum');
  if (Array.isArray(enumValues) && enumValues.every((entry) => typeof entry === 'string')) return 'string';
  if (typeof getOwn(schema, 'const') === 'string') return 'string';
  if (isPlainObject(getOwn(schema, 'properties'))) return 'object';
  fail('schema_unsupported', segments, 'The field has no "type" this form can show.');
}

function stringOptions(values: unknown, segments: readonly (string | number)[]): string[] {
  if (!Array.isArray(values) || values.length === 0) fail('schema_invalid', segments, 'An enum must be a non-empty array.');
  if (values.length > formLimits.options) fail('schema_too_large', segments, `At most ${formLimits.options} choices are shown.`);
  const options: string[] = [];
  for (const [index, value] of values.entries()) {
    if (typeof value !== 'string') fail('schema_unsupported', [...segments, index], 'Only string choices are supported.');
    if (value.length > formLimits.optionChars)
      fail('schema_too_large', [...segments, index], `A choice may have at most ${formLimits.optionChars} characters.`);
    if (!options.includes(value)) options.push(value);
  }
  return options;
}

function describeField(
  context: DescribeContext,
  raw: Record<string, unknown>,
  segments: readonly (string | number)[],
  key: string,
  required: boolean,
  objectDepth: number,
): FormField {
  context.fieldCount += 1;
  if (context.fieldCount > formLimits.fields) fail('schema_too_large', segments, `A form may have at most ${formLimits.fields} fields.`);
  const schema = resolveRef(context, raw, segments);
  for (const keyword of combinators)
    if (Object.hasOwn(schema, keyword)) fail('schema_unsupported', [...segments, keyword], `"${keyword}" is not supported in a response form.`);
  const label = truncate(stringOf(schema, 'title') ?? (key === '' ? 'Answer' : key), formLimits.labelChars);
  const description = stringOf(schema, 'description');
  const path = pointer(segments.filter((_, index) => index % 2 === 1));
  const base = { key, path, label, required, ...(description === undefined ? {} : { description: truncate(description, formLimits.descriptionChars) }) };
  const type = typeOf(schema, segments);
  const fallback = getOwn(schema, 'default');
  switch (type) {
    case 'string': {
      const constant = getOwn(schema, 'const');
      const options =
        typeof constant === 'string' ? [constant] : Object.hasOwn(schema, 'enum') ? stringOptions(getOwn(schema, 'enum'), [...segments, 'enum']) : undefined;
      const format = stringOf(schema, 'format');
      const minLength = countOf(schema, 'minLength', segments);
      const maxLength = countOf(schema, 'maxLength', segments);
      return {
        ...base,
        kind: 'string',
        ...(options === undefined ? {} : { enum: options }),
        ...(format !== undefined && (formats as readonly string[]).includes(format) ? { format: format as StringFormat } : {}),
        ...(minLength === undefined ? {} : { minLength }),
        ...(maxLength === undefined ? {} : { maxLength }),
        ...(typeof fallback === 'string' ? { default: truncate(fallback, formLimits.stringChars) } : {}),
      };
    }
    case 'number':
    case 'integer': {
      const bounds: Record<string, number> = {};
      for (const name of ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']) {
        const value = numberOf(schema, name, segments);
        if (value !== undefined) bounds[name] = value;
      }
      return {
        ...base,
        kind: 'number',
        integer: type === 'integer',
        ...bounds,
        ...(typeof fallback === 'number' && Number.isFinite(fallback) ? { default: fallback } : {}),
      };
    }
    case 'boolean':
      return { ...base, kind: 'boolean', ...(typeof fallback === 'boolean' ? { default: fallback } : {}) };
    case 'array': {
      const items = getOwn(schema, 'items');
      if (!isPlainObject(items)) fail('schema_unsupported', [...segments, 'items'], 'Only arrays of enum strings are supported.');
      const itemSchema = resolveRef(context, items, [...segments, 'items']);
      const itemType = getOwn(itemSchema, 'type');
      if ((itemType !== undefined && itemType !== 'string') || !Object.hasOwn(itemSchema, 'enum'))
        fail('schema_unsupported', [...segments, 'items'], 'Only arrays of enum strings are supported.');
      const options = stringOptions(getOwn(itemSchema, 'enum'), [...segments, 'items', 'enum']);
      const minItems = countOf(schema, 'minItems', segments);
      const maxItems = countOf(schema, 'maxItems', segments);
      const defaults =
        Array.isArray(fallback) && fallback.every((entry) => typeof entry === 'string' && options.includes(entry)) ? (fallback as string[]) : undefined;
      return {
        ...base,
        kind: 'choices',
        options,
        uniqueItems: getOwn(schema, 'uniqueItems') === true,
        ...(minItems === undefined ? {} : { minItems }),
        ...(maxItems === undefined ? {} : { maxItems }),
        ...(defaults === undefined ? {} : { default: defaults }),
      };
    }
    case 'object': {
      if (objectDepth >= formLimits.objectDepth) fail('schema_unsupported', segments, `Objects may nest at most ${formLimits.objectDepth} levels.`);
      const properties = getOwn(schema, 'properties') ?? {};
      if (!isPlainObject(properties)) fail('schema_invalid', [...segments, 'properties'], '"properties" must be an object.');
      if (objectDepth > 0 && Object.keys(properties).length === 0 && getOwn(schema, 'additionalProperties') !== false) {
        const defaults = isPlainObject(fallback) ? cloneJson(fallback) : undefined;
        return { ...base, kind: 'json', ...(isJsonObject(defaults) ? { default: defaults } : {}) };
      }
      const requiredList = getOwn(schema, 'required') ?? [];
      if (!Array.isArray(requiredList) || !requiredList.every((entry) => typeof entry === 'string'))
        fail('schema_invalid', [...segments, 'required'], '"required" must be an array of names.');
      const fields: FormField[] = [];
      for (const name of Object.keys(properties)) {
        const property = getOwn(properties, name);
        if (!isPlainObject(property)) fail('schema_unsupported', [...segments, 'properties', name], 'A property schema must be an object.');
        fields.push(describeField(context, property, [...segments, 'properties', name], name, (requiredList as string[]).includes(name), objectDepth + 1));
      }
      for (const name of requiredList as string[]) {
        if (!Object.hasOwn(properties, name)) fail('schema_unsupported', [...segments, 'required'], `"${name.slice(0, 80)}" is required but has no schema.`);
      }
      return { ...base, kind: 'object', fields, additionalProperties: getOwn(schema, 'additionalProperties') !== false };
    }
    default:
      return fail('schema_unsupported', [...segments, 'type'], `Type "${type.slice(0, 40)}" is not supported in a response form.`);
  }
}

/**
 * Values the agent offers as a field's starting point, by the field's JSON pointer in the answer
 * (`answerSuggestions`): e.g. `{ "/editedArgs": { "path": "notes.txt" } }`, the current arguments
 * of the tool call an approval is about. A suggested field is one unit: sent only when the user
 * changed it, then whole (`settleAnswer`).
 */
export type AnswerSuggestions = Readonly<Record<string, JsonValue>>;

/**
 * Where the agent offers to take edited arguments — a root `editedArgs` object field (pydantic-ai's
 * tool approvals: the edited arguments REPLACE the call's) on an interrupt about a tool call whose
 * arguments are known — the form starts from those arguments, not from an empty box.
 */
export function answerSuggestions(form: ResponseForm, toolArgs: JsonObject | undefined): AnswerSuggestions {
  if (toolArgs === undefined || form.root.kind !== 'object') return {};
  const field = form.root.fields.find((child) => child.key === 'editedArgs');
  if (field === undefined || (field.kind !== 'object' && field.kind !== 'json')) return {};
  return { [field.path]: toolArgs };
}

/**
 * What the form shows at first: the schema's defaults and the suggestions (booleans false, lists
 * empty when neither says otherwise). Not the answer: `settleAnswer` decides what is sent.
 */
export function initialAnswer(form: ResponseForm, suggestions: AnswerSuggestions = {}): JsonValue | undefined {
  return initialFor(form.root, suggestions, undefined);
}

function fits(field: FormField, value: JsonValue | undefined): boolean {
  switch (field.kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'choices':
      return Array.isArray(value) && value.every((entry) => typeof entry === 'string');
    case 'object':
    case 'json':
      return isPlainObject(value);
  }
}

/** The value given for a field before the user does anything: a suggestion (own or from a suggested parent), else the schema's default. */
function givenFor(field: FormField, suggestions: AnswerSuggestions, fromParent: JsonValue | undefined): JsonValue | undefined {
  const suggested = Object.hasOwn(suggestions, field.path) ? suggestions[field.path] : fromParent;
  if (suggested !== undefined && fits(field, suggested)) return cloneJson(suggested);
  return field.kind === 'object' ? undefined : field.default === undefined ? undefined : (cloneJson(field.default) as JsonValue);
}

function initialFor(field: FormField, suggestions: AnswerSuggestions, fromParent: JsonValue | undefined): JsonValue | undefined {
  const given = givenFor(field, suggestions, fromParent);
  switch (field.kind) {
    case 'object': {
      const out: JsonObject = {};
      for (const child of field.fields) {
        const value = initialFor(child, suggestions, isPlainObject(given) ? (getOwn(given, child.key) as JsonValue | undefined) : undefined);
        if (value !== undefined) setOwn(out, child.key, value);
      }
      return out;
    }
    case 'boolean':
      return given ?? false;
    case 'choices':
      return given ?? [];
    default:
      return given;
  }
}

/**
 * The answer to send, from what the form holds (`answer`: every field's current value, as
 * initialAnswer shaped it): only what the user set, plus what the schema makes required or gives a
 * default. A field counts as set when its value differs from where it started (its default or
 * suggestion; false for a checkbox, no choices for a list). Untouched optional fields are absent at
 * every depth, and so is an optional object none of whose fields was set. A suggested field is one
 * unit: absent while unchanged, whole once changed (with any keys of the suggestion the form does
 * not show) — for pydantic-ai's `editedArgs`, approving without editing sends `{"approved": true}`.
 */
export function settleAnswer(form: ResponseForm, answer: JsonValue | undefined, suggestions: AnswerSuggestions = {}): JsonValue | undefined {
  return settleField(form.root, answer, suggestions, true).value;
}

interface Settled {
  value?: JsonValue;
  set: boolean;
}

function settleField(field: FormField, value: JsonValue | undefined, suggestions: AnswerSuggestions, root: boolean): Settled {
  const given = givenFor(field, suggestions, undefined);
  if (Object.hasOwn(suggestions, field.path) && given !== undefined) {
    // A suggested unit: compared whole; keys the form does not show are kept from the suggestion.
    let whole = value;
    if (field.kind === 'object' && isPlainObject(value) && isPlainObject(given) && field.additionalProperties) {
      const merged: JsonObject = {};
      for (const key of Object.keys(given)) if (!field.fields.some((child) => child.key === key)) setOwn(merged, key, given[key] as JsonValue);
      for (const key of Object.keys(value)) setOwn(merged, key, value[key] as JsonValue);
      whole = merged;
    }
    const set = !jsonEqual(whole, given);
    return set || field.required || root ? { value: whole, set } : { set };
  }
  if (field.kind === 'object') {
    if (value === undefined) return { set: false };
    if (!isPlainObject(value)) return { value, set: true };
    const out: JsonObject = {};
    let set = false;
    for (const child of field.fields) {
      const settled = settleField(child, getOwn(value, child.key) as JsonValue | undefined, suggestions, false);
      set ||= settled.set;
      if (settled.value !== undefined) setOwn(out, child.key, settled.value);
    }
    for (const key of Object.keys(value)) {
      if (field.fields.some((child) => child.key === key)) continue;
      set = true;
      setOwn(out, key, value[key] as JsonValue);
    }
    return set || field.required || root ? { value: out, set } : { set };
  }
  const start = given ?? (field.kind === 'boolean' ? false : field.kind === 'choices' ? [] : undefined);
  const set = !jsonEqual(value, start);
  if (value === undefined) return { set };
  return set || field.required || root || given !== undefined ? { value, set } : { set };
}

/** Problems with the user's answer (empty when it satisfies the form); paths are JSON pointers into the answer. */
export function validateAnswer(form: ResponseForm, answer: unknown): Problem[] {
  const measure = measureJson(answer, { maxDepth: formLimits.answerDepth, maxChars: formLimits.answerChars });
  if (!measure.ok) return [{ code: 'answer_too_large', path: '', message: `The answer is ${measure.message}.` }];
  const problems: Problem[] = [];
  checkField(form.root, answer, problems);
  return problems.slice(0, 50);
}

function checkField(field: FormField, value: unknown, problems: Problem[]): void {
  const at = (code: string, message: string) => problems.push({ code, path: field.path, message: `${field.label}: ${message}` });
  switch (field.kind) {
    case 'string': {
      if (typeof value !== 'string') return void at('answer_type', 'must be text.');
      if (field.required && value.trim() === '' && field.enum === undefined) return void at('answer_required', 'is required.');
      if (field.enum !== undefined && !field.enum.includes(value)) return void at('answer_not_allowed', 'is not one of the choices.');
      if (field.minLength !== undefined && [...value].length < field.minLength) at('answer_length', `must have at least ${field.minLength} characters.`);
      if (field.maxLength !== undefined && [...value].length > field.maxLength) at('answer_length', `must have at most ${field.maxLength} characters.`);
      if (value.length > formLimits.stringChars) at('answer_length', `must have at most ${formLimits.stringChars} characters.`);
      if (field.format !== undefined && value !== '' && !formatMatches(field.format, value)) at('answer_format', `is not a valid ${field.format}.`);
      return;
    }
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return void at('answer_type', 'must be a number.');
      if (field.integer && !Number.isInteger(value)) at('answer_type', 'must be a whole number.');
      if (field.minimum !== undefined && value < field.minimum) at('answer_out_of_range', `must be at least ${field.minimum}.`);
      if (field.maximum !== undefined && value > field.maximum) at('answer_out_of_range', `must be at most ${field.maximum}.`);
      if (field.exclusiveMinimum !== undefined && value <= field.exclusiveMinimum) at('answer_out_of_range', `must be more than ${field.exclusiveMinimum}.`);
      if (field.exclusiveMaximum !== undefined && value >= field.exclusiveMaximum) at('answer_out_of_range', `must be less than ${field.exclusiveMaximum}.`);
      return;
    }
    case 'boolean':
      if (typeof value !== 'boolean') at('answer_type', 'must be yes or no.');
      return;
    case 'choices': {
      if (!Array.isArray(value)) return void at('answer_type', 'must be a list of choices.');
      if (!value.every((entry) => typeof entry === 'string' && field.options.includes(entry)))
        at('answer_not_allowed', 'contains something that is not one of the choices.');
      if (field.uniqueItems && new Set(value).size !== value.length) at('answer_duplicate', 'lists a choice twice.');
      if (field.minItems !== undefined && value.length < field.minItems) at('answer_count', `needs at least ${field.minItems} choices.`);
      if (field.maxItems !== undefined && value.length > field.maxItems) at('answer_count', `allows at most ${field.maxItems} choices.`);
      return;
    }
    case 'json':
      if (!isPlainObject(value)) at('answer_type', 'must be a JSON object ({…}).');
      return;
    case 'object': {
      if (!isPlainObject(value)) return void at('answer_type', 'must be an object.');
      for (const child of field.fields) {
        if (!Object.hasOwn(value, child.key)) {
          if (child.required) problems.push({ code: 'answer_required', path: child.path, message: `${child.label}: is required.` });
          continue;
        }
        checkField(child, getOwn(value, child.key), problems);
      }
      if (!field.additionalProperties) {
        for (const key of Object.keys(value)) {
          if (!field.fields.some((child) => child.key === key))
            problems.push({ code: 'answer_unknown_field', path: `${field.path}${pointer([key])}`, message: `"${key.slice(0, 80)}" is not part of this form.` });
        }
      }
      return;
    }
  }
}

function formatMatches(format: StringFormat, value: string): boolean {
  switch (format) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) && value.length <= 320;
    case 'uri':
      return URL.canParse(value);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
    case 'date-time':
      return /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));
    case 'time':
      return /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$/.test(value);
  }
}
