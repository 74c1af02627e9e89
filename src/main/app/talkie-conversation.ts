import { ServiceError } from '../../shared/base/errors';
import { toolAnswer, toolStarted } from '../../shared/talkie/voice/voice-call';
import type { ConversationService } from '../conversation/conversation-service';
import type { TalkieConversations } from '../conversation/talkie-source';
import type { TalkieServiceTable, TalkieTable } from '../talkie/talkie-table';

/** How many voice calls (the newest) main keeps the thread of, and how many lines and tools one call may show. */
export const voiceFoldLimits = { calls: 64, linesPerCall: 20_000, toolsPerCall: 10_000 } as const;

interface CallThread {
  agentId: string;
  threadId: string;
  labels: Readonly<Record<string, string>>;
  lines: Set<string>;
  tools: Set<string>;
}

/**
 * What the other Talkie methods answered, folded into the agent's open conversation (main is the judge
 * of what the page shows; the page only asks): a decision on an action, the action read again, and
 * a voice call's thread, tool lines (as each tool starts and ends), cards, actions, spoken lines and
 * spoken decisions. New chat ends the open conversation so that the next one starts empty.
 *
 * Each voice call's agent, thread and tool labels are kept from `talkie.voiceStart`'s answer (the
 * newest `voiceFoldLimits.calls` calls, until `talkie.voiceEnd`); a call's lines and tools only reach
 * the conversation that shows the call's thread.
 */
export function talkieConversationHandlers(
  table: TalkieServiceTable,
  deps: { talkie: TalkieConversations; conversations: Pick<ConversationService, 'close'> },
): TalkieTable {
  const { talkie } = deps;
  const calls = new Map<string, CallThread>();
  const callOf = (callId: string): CallThread => {
    const found = calls.get(callId);
    if (found === undefined) throw new ServiceError('not_found', 'This voice call has ended; start a new one.');
    return found;
  };
  return {
    ...table,
    'talkie.newChat': async ({ agentId }) => {
      await deps.conversations.close(agentId);
      talkie.startFresh(agentId);
      return {};
    },
    'talkie.decide': async (request) => {
      const answer = await table['talkie.decide'](request);
      talkie.decided(request.agentId, answer);
      return answer;
    },
    'talkie.action': async (request) => {
      const answer = await table['talkie.action'](request);
      talkie.actionRead(request.agentId, answer.action);
      return answer;
    },
    'talkie.voiceStart': async (request) => {
      const answer = await table['talkie.voiceStart'](request);
      calls.set(answer.callId, { agentId: request.agentId, threadId: answer.threadId, labels: answer.labels, lines: new Set(), tools: new Set() });
      if (calls.size > voiceFoldLimits.calls) calls.delete(calls.keys().next().value!);
      talkie.voiceThread(request.agentId, answer.threadId);
      return answer;
    },
    'talkie.voiceTool': async (request) => {
      const call = calls.get(request.callId);
      // Shown once per provider call id (the page asks once; a repeat changes nothing shown).
      const shows = call !== undefined && !call.tools.has(request.providerCallId) && call.tools.size < voiceFoldLimits.toolsPerCall;
      const show = (answer: Parameters<typeof toolAnswer>[1]) => {
        if (shows) talkie.voiceUpdates(call.agentId, call.threadId, toolAnswer(request.providerCallId, answer).shown);
      };
      if (shows) {
        call.tools.add(request.providerCallId);
        talkie.voiceUpdates(call.agentId, call.threadId, [toolStarted(call.labels, request.providerCallId, request.name)]);
      }
      try {
        const result = await table['talkie.voiceTool'](request);
        show({ result });
        return result;
      } catch (error) {
        show({ error: error instanceof Error ? error.message : 'The tool could not run.' });
        throw error;
      }
    },
    'talkie.voiceDecide': async (request) => {
      const call = calls.get(request.callId);
      const answer = await table['talkie.voiceDecide'](request);
      if (call !== undefined) talkie.decided(call.agentId, answer);
      return answer;
    },
    'talkie.voiceLine': ({ callId, itemId, role, text, state }) => {
      const call = callOf(callId);
      if (!call.lines.has(itemId)) {
        if (call.lines.size >= voiceFoldLimits.linesPerCall) throw new ServiceError('not_allowed', 'This voice call has shown too many lines.');
        call.lines.add(itemId);
      }
      talkie.voiceLine(call.agentId, call.threadId, { id: itemId, role, text, state });
      return { shown: true };
    },
    'talkie.voiceEnd': async (request) => {
      try {
        return await table['talkie.voiceEnd'](request);
      } finally {
        calls.delete(request.callId);
      }
    },
  };
}
