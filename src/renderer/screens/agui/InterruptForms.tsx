import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { InterruptAnswer } from '../../../shared/agui/interrupts';
import { isInterruptExpired, type AguiInterrupt } from '../../../shared/agui/interrupts';
import type { JsonObject } from '../../../shared/agui/json-values';
import {
  answerSuggestions,
  describeResponseSchema,
  settleAnswer,
  validateAnswer,
  type AnswerSuggestions,
  type ResponseForm,
} from '../../../shared/agui/response-form';
import type { IpcError } from '../../../shared/base/errors';
import type { Problem } from '../../../shared/talkie/problems';
import { ErrorAlert, ErrorDetails } from '../../components/ErrorText';
import { useI18n } from '../../i18n/I18nProvider';
import type { MessageKey } from '../../i18n/strings';
import { useNow } from '../../hooks/useNow';
import { initialDraft, toAnswer, type Draft, type DraftValue } from './answer-draft';
import { ResponseField } from './ResponseFields';

/** How an interrupt can be answered: a form, nothing but Send (no schema), or only Cancel. */
type Answerable = { kind: 'form'; form: ResponseForm; suggestions: AnswerSuggestions } | { kind: 'plain' } | { kind: 'cancelOnly'; reason: string };

function answerableOf(interrupt: AguiInterrupt, toolArgs: (toolCallId: string) => JsonObject | undefined): Answerable {
  if (interrupt.schemaProblem !== undefined) return { kind: 'cancelOnly', reason: interrupt.schemaProblem };
  if (interrupt.responseSchema === undefined) return { kind: 'plain' };
  const described = describeResponseSchema(interrupt.responseSchema);
  if (described.ok)
    return {
      kind: 'form',
      form: described.form,
      suggestions: answerSuggestions(described.form, interrupt.toolCallId === undefined ? undefined : toolArgs(interrupt.toolCallId)),
    };
  const problem = described.problems[0];
  return { kind: 'cancelOnly', reason: problem ? `${problem.message}${problem.path === '' ? '' : ` (${problem.path})`}` : '' };
}

const titleKeys: Record<AguiInterrupt['kind'], MessageKey> = {
  tool_call: 'agui.interrupt.title.tool_call',
  input_required: 'agui.interrupt.title.input_required',
  confirmation: 'agui.interrupt.title.confirmation',
  generic: 'agui.interrupt.title.generic',
};

/** m:ss, or h:mm:ss past an hour. */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

interface InterruptState {
  cancel: boolean;
  draft: Draft;
}

export type SendAnswers = (answers: Record<string, InterruptAnswer>, expired: string[]) => Promise<IpcError | undefined>;

/**
 * The agent stopped to ask (RUN_FINISHED with an interrupt outcome): one form per open interrupt
 * and one "Send answers" that checks every form and answers EVERY open interrupt — resolved with
 * its payload, or cancelled (the user's choice, an expired one, one whose schema cannot be shown).
 */
export function InterruptForms({
  interrupts,
  toolName,
  toolArgs,
  onSend,
}: {
  interrupts: AguiInterrupt[];
  toolName: (toolCallId: string) => string | undefined;
  /** The current arguments of a tool call (an approval's edited arguments start from them). */
  toolArgs: (toolCallId: string) => JsonObject | undefined;
  onSend: SendAnswers;
}) {
  const { t } = useI18n();
  const id = useId();
  const answerables = useMemo(() => new Map(interrupts.map((interrupt) => [interrupt.id, answerableOf(interrupt, toolArgs)])), [interrupts, toolArgs]);
  const [states, setStates] = useState<ReadonlyMap<string, InterruptState>>(new Map());
  const [problems, setProblems] = useState<ReadonlyMap<string, Problem[]>>(new Map());
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<IpcError | undefined>();
  const [focusInvalid, setFocusInvalid] = useState(0);
  const rootRef = useRef<HTMLElement>(null);
  const now = useNow(interrupts.some((interrupt) => interrupt.expiresAtMs !== undefined));

  const stateOf = (interrupt: AguiInterrupt): InterruptState => {
    const existing = states.get(interrupt.id);
    if (existing) return existing;
    const answerable = answerables.get(interrupt.id);
    return { cancel: false, draft: answerable?.kind === 'form' ? initialDraft(answerable.form, answerable.suggestions) : {} };
  };

  const update = (interrupt: AguiInterrupt, change: (state: InterruptState) => InterruptState) =>
    setStates((current) => new Map(current).set(interrupt.id, change(current.get(interrupt.id) ?? stateOf(interrupt))));

  // After a refused Send, the first field that needs attention gets the focus.
  useEffect(() => {
    if (focusInvalid === 0) return;
    rootRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [focusInvalid]);

  function send() {
    if (sending) return;
    const at = Date.now();
    const answers: Record<string, InterruptAnswer> = {};
    const expired: string[] = [];
    const found = new Map<string, Problem[]>();
    for (const interrupt of interrupts) {
      const state = stateOf(interrupt);
      const answerable = answerables.get(interrupt.id) ?? { kind: 'plain' };
      if (isInterruptExpired(interrupt, at)) {
        expired.push(interrupt.id);
        answers[interrupt.id] = { status: 'cancelled' };
      } else if (state.cancel || answerable.kind === 'cancelOnly') {
        answers[interrupt.id] = { status: 'cancelled' };
      } else if (answerable.kind === 'plain') {
        answers[interrupt.id] = { status: 'resolved' };
      } else {
        // Only what the user set (and what the schema requires or defaults): no empty editedArgs.
        const payload = settleAnswer(answerable.form, toAnswer(answerable.form.root, state.draft), answerable.suggestions);
        const answerProblems = validateAnswer(answerable.form, payload);
        if (answerProblems.length > 0) found.set(interrupt.id, answerProblems);
        else answers[interrupt.id] = { status: 'resolved', ...(payload === undefined ? {} : { payload }) };
      }
    }
    setProblems(found);
    setError(undefined);
    if (found.size > 0) {
      setFocusInvalid((value) => value + 1);
      return;
    }
    setSending(true);
    void onSend(answers, expired).then((failure) => {
      setSending(false);
      if (failure) setError(failure);
    });
  }

  return (
    <section ref={rootRef} className="agui-interrupts card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="card__title">
        {t('agui.interrupts.title')}
      </h2>
      {interrupts.map((interrupt, index) => {
        const state = stateOf(interrupt);
        const answerable = answerables.get(interrupt.id) ?? { kind: 'plain' };
        const expired = isInterruptExpired(interrupt, now);
        const formProblems = problems.get(interrupt.id);
        const byPath = new Map<string, Problem[]>();
        for (const problem of formProblems ?? []) byPath.set(problem.path, [...(byPath.get(problem.path) ?? []), problem]);
        // The call's name as the thread knows it, else the one the interrupt's metadata gives (a suspended call may never have been announced).
        const tool = (interrupt.toolCallId !== undefined ? toolName(interrupt.toolCallId) : undefined) || interrupt.toolName;
        const words = interrupt.message ?? interrupt.detail;
        const titleId = `${id}-${index}-title`;
        const answering = !expired && !state.cancel && answerable.kind !== 'cancelOnly';
        return (
          <section key={interrupt.id} className={`agui-interrupt agui-interrupt--${interrupt.kind}`} aria-labelledby={titleId}>
            <h3 id={titleId} className="agui-interrupt__title">
              {t(titleKeys[interrupt.kind])}
            </h3>
            <ul className="agui-interrupt__facts">
              {tool !== undefined && tool !== '' ? <li>{t('agui.interrupt.tool', { name: tool })}</li> : null}
              {interrupt.expiresAtMs !== undefined ? (
                <li className={expired ? 'agui-interrupt__expired' : 'agui-interrupt__countdown'}>
                  {expired ? t('agui.interrupt.expired') : t('agui.interrupt.expiresIn', { time: formatRemaining(interrupt.expiresAtMs - now) })}
                </li>
              ) : null}
            </ul>
            {words !== undefined ? <p className="agui-interrupt__message">{words}</p> : null}
            {interrupt.kind === 'generic' ? (
              // A reason no client knows (`mastra:tool_suspend`) is the agent's code, not words: behind Details.
              <p className="agui-interrupt__reason muted">
                <ErrorDetails detail={t('agui.interrupt.reason', { reason: interrupt.reason })} />
              </p>
            ) : null}
            {answerable.kind === 'cancelOnly' ? (
              <p className="muted">
                {t('agui.interrupt.unsupported')} {answerable.reason !== '' ? <span lang="en">{answerable.reason}</span> : null}
              </p>
            ) : (
              <>
                {answerable.kind === 'form' ? (
                  <fieldset className="agui-form" disabled={!answering || sending}>
                    <legend className="visually-hidden">{t(titleKeys[interrupt.kind])}</legend>
                    {answerable.form.title !== undefined && answerable.form.title !== answerable.form.root.label ? (
                      <p className="agui-form__title">{answerable.form.title}</p>
                    ) : null}
                    {answerable.form.description !== undefined ? <p className="field__hint">{answerable.form.description}</p> : null}
                    <ResponseField
                      field={answerable.form.root}
                      root={answerable.form.root.kind === 'object'}
                      draft={state.draft}
                      problems={byPath}
                      idBase={`${id}-${index}`}
                      onChange={(path: string, value: DraftValue) =>
                        update(interrupt, (current) => ({ ...current, draft: { ...current.draft, [path]: value } }))
                      }
                    />
                  </fieldset>
                ) : (
                  <p className="muted">{t('agui.interrupt.noAnswerNeeded')}</p>
                )}
                {!expired ? (
                  <label className="choice agui-interrupt__cancel">
                    <input
                      type="checkbox"
                      className="choice__input"
                      checked={state.cancel}
                      disabled={sending}
                      onChange={(event) => update(interrupt, (current) => ({ ...current, cancel: event.target.checked }))}
                    />
                    <span>{t('agui.interrupt.cancel')}</span>
                  </label>
                ) : null}
              </>
            )}
          </section>
        );
      })}
      <div className="button-row">
        <button type="button" className="button button--primary" disabled={sending} aria-busy={sending || undefined} onClick={send}>
          {t('agui.interrupt.send')}
        </button>
      </div>
      <div role="status" className="feedback">
        {problems.size > 0 ? <p className="error-text">{t('agui.interrupt.invalid')}</p> : null}
      </div>
      <ErrorAlert summary={t('agui.interrupt.failed')} error={error} />
    </section>
  );
}
