import { useId } from 'react';
import { prettyJson } from '../../../shared/agui/json-values';
import { aguiLimits, type AguiThreadView } from '../../../shared/agui/run-model';
import { useI18n } from '../../i18n/I18nProvider';

/** The current run's steps (STEP_STARTED/FINISHED) as a progress list; subagent steps name their subagent. */
export function AguiSteps({ thread }: { thread: AguiThreadView }) {
  const { t } = useI18n();
  const id = useId();
  const steps = thread.runId === undefined ? [] : thread.steps.filter((step) => step.runId === thread.runId);
  if (steps.length === 0) return null;
  const names = new Map(thread.subagents.map((subagent) => [subagent.id, subagent.name]));
  return (
    // Shrinks and scrolls when a question form needs the room: focusable, so the keyboard can scroll it too (axe: scrollable-region-focusable).
    <section className="agui-steps" aria-labelledby={`${id}-title`} tabIndex={0}>
      <h2 id={`${id}-title`} className="agui-steps__title">
        {t('agui.steps.title')}
      </h2>
      <ol className="agui-steps__list">
        {steps.map((step) => (
          <li key={step.id} className={`agui-step agui-step--${step.state}`}>
            <span className="agui-step__mark" aria-hidden="true">
              {step.state === 'finished' ? '✓' : '…'}
            </span>{' '}
            <span className="agui-step__name">
              {step.subagentRunId !== undefined ? `${names.get(step.subagentRunId) ?? step.subagentRunId}: ` : ''}
              {step.name}
            </span>{' '}
            <span className="agui-step__state">({t(step.state === 'finished' ? 'agui.steps.finished' : 'agui.steps.running')})</span>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** The agent state (inspectable, collapsed) and the protocol notes about bad input (collapsed). */
export function AguiInspect({ thread }: { thread: AguiThreadView }) {
  const { t } = useI18n();
  const state = thread.state === undefined ? undefined : prettyJson(thread.state, aguiLimits.stateChars);
  if (state === undefined && thread.notes.length === 0) return null;
  return (
    <div className="agui-inspect">
      {state !== undefined ? (
        <details className="agui-inspect__state">
          <summary>{t('agui.state.title')}</summary>
          <pre className="agui-pre">{state}</pre>
        </details>
      ) : null}
      {thread.notes.length > 0 ? (
        <details className="manifest-notes agui-inspect__notes">
          <summary className="manifest-notes__summary">{t('agui.notes.title', { count: thread.noteCount })}</summary>
          {/* The run model writes these notes in English. */}
          <ul className="manifest-notes__list" lang="en">
            {thread.notes.map((note, index) => (
              <li key={`${note.seq}:${index}`}>
                <code>{note.code}</code> {note.message}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
