import type { HandlerTable } from '../ipc/handler-table';
import type { AgentCallService } from './agentcall-service';

/** `agentcall.*`: an AgentCall session (opened per agent, then addressed by its session key). */
export function agentcallHandlers({ agentCall }: { agentCall: AgentCallService }): HandlerTable<'agentcall'> {
  return {
    'agentcall.open': ({ agentId }) => agentCall.open(agentId),
    'agentcall.card': ({ agentId }) => agentCall.card(agentId),
    'agentcall.useToken': ({ agentId, token }) => agentCall.useToken(agentId, token),
    'agentcall.sendText': ({ sessionKey, text }) => agentCall.sendText(sessionKey, text),
    'agentcall.sendObservation': ({ sessionKey, ...request }) => agentCall.sendObservation(sessionKey, request),
    'agentcall.answerProposal': ({ sessionKey, proposalId, answer }) => agentCall.answerProposal(sessionKey, proposalId, answer),
    'agentcall.confirmRecipe': ({ sessionKey, passportId, recipeId }) => agentCall.confirmRecipe(sessionKey, passportId, recipeId),
    'agentcall.decline': ({ sessionKey }) => agentCall.decline(sessionKey),
    'agentcall.cancel': ({ sessionKey }) => agentCall.cancel(sessionKey),
    'agentcall.end': ({ sessionKey }) => agentCall.end(sessionKey),
    'agentcall.callOffer': ({ agentId, sdp }) => agentCall.callOffer(agentId, sdp),
    'agentcall.callOpened': ({ callKey }) => agentCall.callOpened(callKey),
    'agentcall.callMessage': ({ callKey, text, refused }) => agentCall.callMessage(callKey, { text, refused }),
    'agentcall.callClosed': ({ callKey, why, clean }) => agentCall.callClosed(callKey, why, clean),
    'agentcall.audioTurn': ({ sessionKey, action, microphoneStopped }) => agentCall.audioTurn(sessionKey, action, microphoneStopped),
  };
}
