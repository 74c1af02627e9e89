import type { z } from 'zod';
import type { contract, MethodName, MethodResponse } from '../../shared/ipc/contract';

type TalkieMethod = Extract<MethodName, `talkie.${string}`>;

/**
 * Every `talkie.*` handler: the dispatcher's `HandlerTable<'talkie'>`, spelled from the contract alone
 * (the renderer's tests run main's Talkie conversation, and their build has no Node types for the dispatcher's).
 */
export type TalkieTable = {
  [M in TalkieMethod]: (request: z.output<(typeof contract.methods)[M]['request']>) => Promise<MethodResponse<M>> | MethodResponse<M>;
};

/** The `talkie.*` methods only the open conversation answers (src/main/app/talkie-conversation.ts). */
export type TalkieConversationMethods = 'talkie.newChat' | 'talkie.voiceLine';

/** Every other `talkie.*` method: TalkieService's and VoiceService's (talkie-handlers.ts). */
export type TalkieServiceTable = Omit<TalkieTable, TalkieConversationMethods>;
