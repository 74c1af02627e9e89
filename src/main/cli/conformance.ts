import { randomUUID } from 'node:crypto';
import type { Action, Card } from '../../shared/talkie/content';
import type { RunUpdate } from '../../shared/talkie/conversation';
import { voiceAvailability } from '../../shared/talkie/voice/voice-session';
import { describe, type RunOutcome, type TalkieClient } from '../talkie/talkie-client';
import { agentCallConformance } from './agentcall-conformance';
import { identifyCliAgent } from './agentcall-connect';
import { CheckFailed, checkReport, expect, refusal, type CheckResult } from './checks';
import { connectTalkie } from './connect';
import { exitCodes, type Io } from './output';
import { markWebRtcLoaded } from './webrtc-loaded';

/**
 * `agentdesk conformance <address> [--token T] [--json] [--dev] [--wait-expiry] [--no-voice]`: the
 * Talkie 1 §11 test mode, then §10 voice: the first against any server whose manifest says
 * `testMode: true`, voice when the manifest offers it (voice-conformance.ts; skipped with the reason
 * otherwise, or with --no-voice). One line per check; exit 0 only when no check failed. The expiry
 * check waits for a real expiry (≥ 60 s by Talkie 1 §11), so it runs only with --wait-expiry and is
 * otherwise reported as skipped, with that reason.
 */
interface Options {
  dev: boolean;
  token?: string | undefined;
  json: boolean;
  waitExpiry: boolean;
  /** How long to wait for a dropped run to show up in the thread. */
  recoveryTimeoutMs?: number;
  /** AgentCall agents: how long each wait of the suite lasts (default 10 s). */
  stepTimeoutMs?: number;
  /** false (--no-voice): the Talkie 1 §10 voice checks are skipped. */
  voice?: boolean;
  /** For tests against servers that speak only Talkie 1 §10: false runs no §11 chat checks. */
  chatChecks?: boolean;
}

interface Run {
  updates: RunUpdate[];
  outcome: RunOutcome;
  threadId: string;
  messageId: string;
}

export async function conformance(address: string, options: Options, io: Io): Promise<number> {
  // An AgentCall agent (or an agent card AgentDesk cannot use) gets the reference-proof suite.
  const agent = await identifyCliAgent(address, options);
  if (agent.protocol !== 'talkie') return agentCallConformance(agent, { ...options, onWebrtcLoaded: markWebRtcLoaded }, io);
  const { report, finish } = checkReport(io, options.json);
  const client = await connectTalkie(address, options);
  if (!client.manifest.testMode) {
    report({ name: 'test mode', ok: false, detail: 'the manifest does not say "testMode": true, so the suite does not run (it would create real actions).' });
  } else {
    report({ name: 'test mode', ok: true, detail: `${client.manifest.name} (${client.manifest.serverId}) is in test mode` });
    for (const check of options.chatChecks === false ? [] : suite(options)) {
      try {
        report(await check(client));
      } catch (error) {
        report({ name: check.name, ok: false, detail: error instanceof CheckFailed ? error.message : describe(error).message });
      }
    }
    await voice(client, options, report);
  }
  return finish() ? exitCodes.ok : exitCodes.rejected;
}

/** Talkie 1 §10, when the manifest offers voice: the checks live in voice-conformance.ts, loaded (with node-datachannel) only here. */
async function voice(client: TalkieClient, options: Options, report: (result: CheckResult) => void): Promise<void> {
  const skip = (detail: string) => report({ name: 'voice', ok: true, skipped: true, detail });
  if (options.voice === false) return skip('--no-voice');
  const availability = voiceAvailability(client.manifest);
  if (!availability.offered) {
    // Voice declared without its endpoints breaks Talkie 1 §1; voice AgentDesk cannot speak is only not checked.
    if (availability.code === 'voice_endpoint_missing') return report({ name: 'voice', ok: false, detail: availability.message });
    return skip(`${availability.message} Nothing to check.`);
  }
  const checks = await import('./voice-conformance').catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))));
  if (checks instanceof Error) return skip(`WebRTC (node-datachannel) cannot be loaded on this machine, so voice was not checked: ${checks.message}`);
  markWebRtcLoaded();
  await checks.voiceChecks(client, { dev: options.dev }, report);
}

type Check = (client: TalkieClient) => Promise<CheckResult>;

function named(name: string, check: (client: TalkieClient) => Promise<string | CheckResult>): Check {
  const run = async (client: TalkieClient): Promise<CheckResult> => {
    const result = await check(client);
    return typeof result === 'string' ? { name, ok: true, detail: result } : result;
  };
  Object.defineProperty(run, 'name', { value: name });
  return run;
}

function suite(options: Options): Check[] {
  return [
    named('echo', async (client) => {
      const text = `conformance ${randomUUID().slice(0, 8)} — ünïcode ✓ **as-is**  spaces`;
      const run = await send(client, `talkie-test:echo ${text}`);
      expectFinished(run);
      const messages = textMessages(run.updates);
      expect(messages.length === 1, `expected one text message, got ${messages.length}`);
      expect(messages[0] === text, `the echoed text differs: expected ${JSON.stringify(text)}, got ${JSON.stringify(messages[0])}`);
      return 'one text message with exactly the sent text';
    }),
    named('card', async (client) => {
      const run = await send(client, 'talkie-test:card');
      expectFinished(run);
      const start = run.updates.find((u) => u.type === 'tool.start');
      const end = run.updates.find((u): u is Extract<RunUpdate, { type: 'tool.end' }> => u.type === 'tool.end');
      expect(start, 'no TOOL_CALL_START');
      expect(end?.ok === true, 'no TOOL_CALL_END with metadata.ok true');
      const cards = run.updates.filter((u): u is { type: 'card'; card: Card } => u.type === 'card');
      expect(cards.length === 1, `expected one talkie.card, got ${cards.length}`);
      expect(
        cards[0]!.card.blocks?.some((block) => block.type === 'fields'),
        'the card has no valid fields block',
      );
      expect(textMessages(run.updates).join('').trim() !== '', 'no short text after the card');
      return 'tool call start/end (ok), one card with a fields block, and text';
    }),
    named('action pending', async (client) => {
      const { action } = await proposeAction(client);
      expect(action.status === 'pending', `status is ${action.status}, not pending`);
      expect(action.riskLevel === 'low', `riskLevel is ${action.riskLevel}, not low`);
      expect(action.buttons, 'confirm.methods does not include "button"');
      const seconds = action.expiresAt ? (Date.parse(action.expiresAt) - Date.now()) / 1000 : Number.NaN;
      expect(seconds >= 55, `expires in ${Number.isNaN(seconds) ? 'an unreadable time' : `${Math.round(seconds)} s`}, not ≥ 60 s`);
      return `pending, low risk, button confirm, expires in ${Math.round(seconds)} s`;
    }),
    named('action confirm, repeat, conflict', async (client) => {
      const { action } = await proposeAction(client);
      const first = (await client.decide(action.id, { decision: 'confirm', paramsHash: action.paramsHash, method: 'button' })) as {
        action?: { status?: string };
      };
      const after = await client.action(action.id);
      expect(after.status === 'done', `after confirm the action is ${after.status}, not done (decision answered ${first.action?.status ?? '?'})`);
      await client.decide(action.id, { decision: 'confirm', paramsHash: action.paramsHash, method: 'button' });
      const conflict = await refusal(() => client.decide(action.id, { decision: 'cancel', paramsHash: action.paramsHash, method: 'button' }));
      expect(
        conflict?.status === 409 && conflict.code === 'conflict',
        `the opposite decision answered ${conflict ? `${conflict.status} ${conflict.code}` : '200'}, not 409 conflict`,
      );
      return 'confirm → done; the same decision again → 200; the opposite → 409 conflict';
    }),
    named('action stale', async (client) => {
      const { action } = await proposeAction(client);
      const stale = await refusal(() => client.decide(action.id, { decision: 'confirm', paramsHash: `${action.paramsHash}0`, method: 'button' }));
      expect(
        stale?.status === 409 && stale.code === 'stale',
        `a changed paramsHash answered ${stale ? `${stale.status} ${stale.code}` : '200'}, not 409 stale`,
      );
      return 'a changed paramsHash → 409 stale';
    }),
    named('action expired', async (client) => {
      if (!options.waitExpiry) return { name: 'action expired', ok: true, skipped: true, detail: 'waits for a real expiry (≥ 60 s); run with --wait-expiry' };
      const { action } = await proposeAction(client);
      const wait = Math.max(0, Date.parse(action.expiresAt ?? '') - Date.now()) + 1500;
      await new Promise((resolve) => setTimeout(resolve, wait));
      const expired = await refusal(() => client.decide(action.id, { decision: 'confirm', paramsHash: action.paramsHash, method: 'button' }));
      expect(expired?.status === 410, `after expiresAt the decision answered ${expired ? expired.status : 200}, not 410 expired`);
      return 'a decision after expiresAt → 410 expired';
    }),
    named('retryable error', async (client) => {
      const run = await send(client, 'talkie-test:error');
      expect(run.outcome.kind === 'error', `the run ended ${run.outcome.kind}, not with RUN_ERROR`);
      const error = run.outcome as Extract<RunOutcome, { kind: 'error' }>;
      expect(error.code === 'upstream_unavailable', `RUN_ERROR code is ${error.code}, not upstream_unavailable`);
      expect(error.retryable, 'RUN_ERROR metadata.retryable is not true');
      return 'RUN_ERROR upstream_unavailable, retryable';
    }),
    named('slow run cancelled', async (client) => {
      let cancelling: Promise<unknown> | undefined;
      const run = await send(client, 'talkie-test:slow', (update, runId) => {
        if (update.type === 'text.delta') cancelling ??= client.cancelRun(runId);
      });
      const cancelled = await cancelling;
      expect((cancelled as { ok?: unknown } | undefined)?.ok === true, 'cancelRun did not answer {"ok": true}');
      expect(run.outcome.kind !== 'interrupted', 'the stream did not end after cancelRun');
      return `cancelRun answered ok and the run ended (${run.outcome.kind})`;
    }),
    named('slow run disconnected, recovered from the thread', async (client) => {
      const controller = new AbortController();
      let streamed = '';
      const run = await send(
        client,
        'talkie-test:slow',
        async (update) => {
          if (update.type === 'text.delta') {
            streamed += update.delta;
            controller.abort();
          }
        },
        controller.signal,
      );
      expect(streamed !== '', 'no text arrived before the disconnect');
      const deadline = Date.now() + (options.recoveryTimeoutMs ?? 20_000);
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        const thread = (await client.thread(run.threadId)) as { messages?: { id?: string; role?: string; content?: string }[] };
        const messages = thread.messages ?? [];
        const at = messages.findIndex((message) => message.id === run.messageId);
        const answer = at === -1 ? undefined : messages.slice(at + 1).find((message) => message.role === 'assistant');
        if (answer?.content && answer.content.length > streamed.length)
          return `the thread holds the full answer (${answer.content.length} characters) after the client dropped`;
      }
      throw new CheckFailed("the run's answer never appeared in the thread after the client disconnected (disconnect must not cancel)");
    }),
  ];
}

async function send(
  client: TalkieClient,
  text: string,
  onUpdate?: (update: RunUpdate, runId: string) => void | Promise<void>,
  signal?: AbortSignal,
): Promise<Run> {
  const run: Run = { updates: [], outcome: { kind: 'finished' }, threadId: `t_${randomUUID()}`, messageId: `m_${randomUUID()}` };
  const runId = `r_${randomUUID()}`;
  run.outcome = await client.run(
    { threadId: run.threadId, runId, messages: [{ id: run.messageId, role: 'user', content: text }] },
    (update) => {
      if (update.type === 'run.started') run.threadId = update.threadId;
      run.updates.push(update);
      void onUpdate?.(update, runId);
    },
    signal,
  );
  return run;
}

async function proposeAction(client: TalkieClient): Promise<{ action: Action }> {
  const run = await send(client, 'talkie-test:action');
  expectFinished(run);
  const actions = run.updates.filter((u): u is { type: 'action'; action: Action } => u.type === 'action');
  expect(actions.length === 1, `expected one talkie.action, got ${actions.length}`);
  return { action: actions[0]!.action };
}

function expectFinished(run: Run): void {
  expect(
    run.outcome.kind === 'finished',
    `the run ended ${run.outcome.kind}${'message' in run.outcome ? `: ${run.outcome.message}` : ''}, not with RUN_FINISHED`,
  );
  expect(run.updates[0]?.type === 'run.started', 'the first event is not RUN_STARTED');
}

function textMessages(updates: RunUpdate[]): string[] {
  const texts = new Map<string, string>();
  for (const update of updates) {
    if (update.type === 'text.start') texts.set(update.messageId, texts.get(update.messageId) ?? '');
    if (update.type === 'text.delta') texts.set(update.messageId, `${texts.get(update.messageId) ?? ''}${update.delta}`);
  }
  return [...texts.values()];
}
