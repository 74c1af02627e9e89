import { useId, useRef, useState } from 'react';
import { callShortcut, callShortcutLabel, type AcceleratorProblem } from '../../../shared/talkie/voice/call-shortcut';
import { keyCombination } from '../../components/key-combination';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { GroupFeedback, type Feedback } from './controls';

const onMac = typeof navigator !== 'undefined' && /Mac/.test(navigator.platform || navigator.userAgent);

/** The call's global shortcut: the field records the keys pressed in it (Tab still moves on, Escape still leaves). */
export function VoiceGroup({
  shortcut,
  feedback,
  onChange,
}: {
  shortcut: string | undefined;
  feedback: Feedback;
  onChange: (accelerator: string | null) => void;
}) {
  const { t } = useI18n();
  const id = useId();
  const [refused, setRefused] = useState<AcceleratorProblem | undefined>(undefined);
  const field = useRef<HTMLInputElement>(null);
  const platform = onMac ? 'darwin' : 'other';
  const shown = callShortcutLabel(platform, shortcut ?? callShortcut);
  const refusedKey: MessageKey | undefined =
    refused === undefined
      ? undefined
      : refused === 'no_modifier'
        ? 'settings.voice.shortcut.refused.no_modifier'
        : refused === 'escape'
          ? 'settings.voice.shortcut.refused.escape'
          : 'settings.voice.shortcut.refused.other';
  return (
    <fieldset className="settings-group">
      <legend className="settings-group__legend">{t('settings.voice.legend')}</legend>
      <div className="field">
        <label htmlFor={`${id}-shortcut`} className="field__label">
          {t('settings.voice.shortcut.label')}
        </label>
        <p id={`${id}-shortcut-description`} className="field__hint">
          {t('settings.voice.shortcut.description')}
        </p>
        <input
          ref={field}
          id={`${id}-shortcut`}
          className="input"
          type="text"
          readOnly
          autoComplete="off"
          value={shown}
          aria-invalid={refusedKey !== undefined || undefined}
          aria-describedby={`${id}-shortcut-description${refusedKey ? ` ${id}-shortcut-error` : ''}`}
          onKeyDown={(event) => {
            if (event.key === 'Tab' || (event.key === 'Escape' && !event.ctrlKey && !event.altKey && !event.shiftKey && !event.metaKey)) return;
            event.preventDefault();
            const pressed = keyCombination(event.nativeEvent, onMac);
            if (pressed.kind === 'modifiers-only') return;
            if (pressed.kind === 'refused') return setRefused(pressed.problem);
            setRefused(undefined);
            if (pressed.accelerator !== (shortcut ?? callShortcut)) onChange(pressed.accelerator === callShortcut ? null : pressed.accelerator);
          }}
        />
        {refusedKey ? (
          <p id={`${id}-shortcut-error`} className="error-text">
            {t(refusedKey)}
          </p>
        ) : null}
        {shortcut !== undefined ? (
          <p>
            <button
              type="button"
              className="button button--secondary"
              onClick={() => {
                // The button goes away with the choice: the focus stays in the group, on the field.
                field.current?.focus();
                onChange(null);
              }}
            >
              {t('settings.voice.shortcut.default', { keys: callShortcutLabel(platform, callShortcut) })}
            </button>
          </p>
        ) : null}
      </div>
      <GroupFeedback feedback={feedback} />
    </fieldset>
  );
}
