import type { TalkieServiceTable } from './talkie-table';
import type { TalkieService } from './talkie-service';
import type { VoiceService } from './voice-service';

/**
 * `talkie.*`: a Talkie agent's connection, sign-in, threads, runs and actions, and Talkie 1 §10 voice calls.
 * What they change in the open conversation is folded in by the composition root (talkie-conversation.ts).
 */
export function talkieHandlers({ talkie, voice }: { talkie: TalkieService; voice: VoiceService }): TalkieServiceTable {
  return {
    'talkie.connect': ({ agentId }) => talkie.connect(agentId),
    'talkie.acceptEndpoints': ({ agentId }) => talkie.acceptEndpoints(agentId),
    'talkie.useToken': ({ agentId, token }) => talkie.useToken(agentId, token),
    'talkie.signIn': ({ agentId }) => talkie.signIn(agentId),
    'talkie.cancelSignIn': ({ agentId }) => talkie.cancelSignIn(agentId),
    'talkie.openSignInLink': ({ agentId }) => talkie.openSignInLink(agentId),
    'talkie.signOut': ({ agentId }) => talkie.signOut(agentId),
    'talkie.status': ({ agentId }) => talkie.status(agentId),
    'talkie.send': ({ agentId, threadId, messageId, text }) => talkie.send(agentId, { threadId, messageId, text }),
    'talkie.cancel': ({ agentId, runKey }) => talkie.cancel(agentId, runKey),
    'talkie.threads': ({ agentId }) => talkie.threads(agentId),
    'talkie.thread': ({ agentId, threadId }) => talkie.thread(agentId, threadId),
    'talkie.threadEarlier': ({ agentId, threadId, before }) => talkie.threadEarlier(agentId, threadId, before),
    'talkie.deleteThread': ({ agentId, threadId }) => talkie.deleteThread(agentId, threadId),
    'talkie.action': ({ agentId, actionId }) => talkie.action(agentId, actionId),
    'talkie.download': ({ agentId, downloadId, url, name }) => talkie.download(agentId, { downloadId, url, name }),
    'talkie.decide': ({ agentId, actionId, decision }) => talkie.decide(agentId, actionId, decision),
    'talkie.voiceStart': ({ agentId, threadId, locale }) => voice.start(agentId, { threadId, locale }),
    'talkie.voiceOffer': ({ callId, sdp }) => voice.offer(callId, sdp),
    'talkie.voiceTool': ({ callId, providerCallId, name, arguments: args }) => voice.tool(callId, { providerCallId, name, arguments: args }),
    'talkie.voiceDecide': ({ callId, actionId, paramsHash, decision }) => voice.decide(callId, { actionId, paramsHash, decision }),
    'talkie.voiceProviderError': ({ callId, ...report }) => voice.providerError(callId, report),
    'talkie.voiceTranscript': ({ callId, role, text, itemId }) => voice.transcript(callId, { role, text, itemId }),
    'talkie.voiceUsage': ({ callId, seconds }) => voice.usage(callId, seconds),
    'talkie.voiceShortcut': ({ callId, armed }) => voice.shortcut(callId, armed),
    'talkie.voiceEnd': ({ callId, seconds }) => voice.end(callId, seconds),
  };
}
