import type { FormField } from '../../../shared/agui/response-form';
import type { Problem } from '../../../shared/talkie/problems';
import { useI18n } from '../../i18n/I18nProvider';
import type { Draft, DraftValue } from './answer-draft';

interface FieldProps {
  field: FormField;
  draft: Draft;
  onChange: (path: string, value: DraftValue) => void;
  /** Problems of the last Send, by the field's path. */
  problems: ReadonlyMap<string, Problem[]>;
  /** Unique per interrupt form: ids of inputs, hints and errors. */
  idBase: string;
  /** The root object is drawn without a fieldset of its own (the interrupt's section is one). */
  root?: boolean;
}

/** Field paths are JSON pointers; ids get a safe, unique spelling of them. */
function idFor(base: string, path: string, suffix: string): string {
  return `${base}-f${encodeURIComponent(path).replace(/%/g, '_')}-${suffix}`;
}

function inputType(field: Extract<FormField, { kind: 'string' }>): string {
  switch (field.format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
    case 'time':
      return 'time';
    default:
      // date-time stays text: the answer needs a time zone a datetime-local field does not have.
      return 'text';
  }
}

/** The validator's messages (English, from src/shared) under the field they are about. */
function FieldErrors({ id, problems }: { id: string; problems: Problem[] | undefined }) {
  if (!problems || problems.length === 0) return null;
  return (
    <p id={id} className="field__error" lang="en">
      {problems.map((problem) => problem.message).join(' ')}
    </p>
  );
}

function Label({ field, htmlFor }: { field: FormField; htmlFor: string }) {
  const { t } = useI18n();
  return (
    <label htmlFor={htmlFor} className="field__label">
      {field.label}
      {field.required && field.kind !== 'boolean' ? <span className="agui-field__required"> {t('agui.interrupt.required')}</span> : null}
    </label>
  );
}

/**
 * An interrupt's responseSchema as form controls (describeResponseSchema's fields): text, email,
 * url, date and time inputs, number inputs with their bounds, a checkbox, a select for an enum, a
 * group of checkboxes for a list of choices, a fieldset for each nested object, and a JSON text
 * area for an object the schema leaves open (a tool's edited arguments, starting from the call's).
 */
export function ResponseField({ field, draft, onChange, problems, idBase, root }: FieldProps) {
  const { t } = useI18n();
  const inputId = idFor(idBase, field.path, 'input');
  const hintId = idFor(idBase, field.path, 'hint');
  const errorId = idFor(idBase, field.path, 'error');
  const own = problems.get(field.path);
  const invalid = own !== undefined && own.length > 0;
  const describedBy = [field.description !== undefined ? hintId : undefined, invalid ? errorId : undefined].filter(Boolean).join(' ') || undefined;
  const hint =
    field.description !== undefined ? (
      <p id={hintId} className="field__hint">
        {field.description}
      </p>
    ) : null;

  switch (field.kind) {
    case 'object': {
      const children = field.fields.map((child) => (
        <ResponseField key={child.path} field={child} draft={draft} onChange={onChange} problems={problems} idBase={idBase} />
      ));
      if (root) {
        return (
          <div className="agui-form__fields">
            {children}
            <FieldErrors id={errorId} problems={own} />
          </div>
        );
      }
      return (
        <fieldset className="agui-form__group" aria-describedby={describedBy}>
          <legend className="radio-group__legend">{field.label}</legend>
          {hint}
          {children}
          <FieldErrors id={errorId} problems={own} />
        </fieldset>
      );
    }
    case 'boolean': {
      const checked = draft[field.path] === true;
      return (
        <div className="checkbox-field">
          <label className="choice">
            <input
              id={inputId}
              type="checkbox"
              className="choice__input"
              checked={checked}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              onChange={(event) => onChange(field.path, event.target.checked)}
            />
            <span>{field.label}</span>
          </label>
          {hint}
          <FieldErrors id={errorId} problems={own} />
        </div>
      );
    }
    case 'choices': {
      const selected = Array.isArray(draft[field.path]) ? (draft[field.path] as string[]) : [];
      return (
        <fieldset className="radio-group" aria-describedby={describedBy}>
          <legend className="radio-group__legend">
            {field.label}
            {field.required ? <span className="agui-field__required"> {t('agui.interrupt.required')}</span> : null}
          </legend>
          {hint}
          <div className="radio-group__options">
            {field.options.map((option) => (
              <label key={option} className="choice">
                <input
                  type="checkbox"
                  className="choice__input"
                  checked={selected.includes(option)}
                  aria-invalid={invalid || undefined}
                  onChange={(event) =>
                    onChange(
                      field.path,
                      event.target.checked ? [...selected.filter((entry) => entry !== option), option] : selected.filter((entry) => entry !== option),
                    )
                  }
                />
                <span>{option}</span>
              </label>
            ))}
          </div>
          <FieldErrors id={errorId} problems={own} />
        </fieldset>
      );
    }
    case 'json': {
      const value = typeof draft[field.path] === 'string' ? (draft[field.path] as string) : '';
      const jsonHintId = idFor(idBase, field.path, 'json');
      return (
        <div className="field">
          <Label field={field} htmlFor={inputId} />
          {hint}
          <p id={jsonHintId} className="field__hint">
            {t('agui.interrupt.jsonHint')}
          </p>
          <textarea
            id={inputId}
            className="input agui-form__json"
            rows={Math.min(12, Math.max(3, value.split('\n').length))}
            spellCheck={false}
            value={value}
            aria-required={field.required || undefined}
            aria-invalid={invalid || undefined}
            aria-describedby={[describedBy, jsonHintId].filter(Boolean).join(' ')}
            onChange={(event) => onChange(field.path, event.target.value)}
          />
          <FieldErrors id={errorId} problems={own} />
        </div>
      );
    }
    case 'number': {
      const value = typeof draft[field.path] === 'string' ? (draft[field.path] as string) : '';
      const min = field.minimum ?? field.exclusiveMinimum;
      const max = field.maximum ?? field.exclusiveMaximum;
      return (
        <div className="field">
          <Label field={field} htmlFor={inputId} />
          {hint}
          <input
            id={inputId}
            type="number"
            className="input agui-form__number"
            inputMode={field.integer ? 'numeric' : 'decimal'}
            step={field.integer ? 1 : 'any'}
            {...(min === undefined ? {} : { min })}
            {...(max === undefined ? {} : { max })}
            value={value}
            aria-required={field.required || undefined}
            aria-invalid={invalid || undefined}
            aria-describedby={describedBy}
            onChange={(event) => onChange(field.path, event.target.value)}
          />
          <FieldErrors id={errorId} problems={own} />
        </div>
      );
    }
    case 'string': {
      const value = typeof draft[field.path] === 'string' ? (draft[field.path] as string) : '';
      if (field.enum !== undefined) {
        return (
          <div className="field">
            <Label field={field} htmlFor={inputId} />
            {hint}
            <select
              id={inputId}
              className="select"
              value={value}
              aria-required={field.required || undefined}
              aria-invalid={invalid || undefined}
              aria-describedby={describedBy}
              onChange={(event) => onChange(field.path, event.target.value)}
            >
              <option value="">{t('agui.interrupt.choose')}</option>
              {field.enum.map((option) => (
                <option key={option} value={option}>
                  {option}
                </option>
              ))}
            </select>
            <FieldErrors id={errorId} problems={own} />
          </div>
        );
      }
      const dateTimeHintId = idFor(idBase, field.path, 'format');
      const long = field.format === undefined && (field.maxLength === undefined || field.maxLength > 200);
      const common = {
        id: inputId,
        className: 'input',
        value,
        ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
        'aria-required': field.required || undefined,
        'aria-invalid': invalid || undefined,
        'aria-describedby': [describedBy, field.format === 'date-time' ? dateTimeHintId : undefined].filter(Boolean).join(' ') || undefined,
      };
      return (
        <div className="field">
          <Label field={field} htmlFor={inputId} />
          {hint}
          {field.format === 'date-time' ? (
            <p id={dateTimeHintId} className="field__hint">
              {t('agui.interrupt.dateTimeHint')}
            </p>
          ) : null}
          {long ? (
            <textarea {...common} rows={3} onChange={(event) => onChange(field.path, event.target.value)} />
          ) : (
            <input
              {...common}
              type={inputType(field)}
              autoComplete="off"
              spellCheck={field.format === undefined}
              onChange={(event) => onChange(field.path, event.target.value)}
            />
          )}
          <FieldErrors id={errorId} problems={own} />
        </div>
      );
    }
  }
}
