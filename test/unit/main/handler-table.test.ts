import { describe, expect, it } from 'vitest';
import { agentcallHandlers } from '../../../src/main/agentcall/agentcall-handlers';
import { agentsHandlers } from '../../../src/main/app/agents-handlers';
import { appHandlers } from '../../../src/main/app/app-handlers';
import { demoHandlers } from '../../../src/main/app/demo-handlers';
import { diagnosticsHandlers } from '../../../src/main/app/diagnostics';
import { policyHandlers } from '../../../src/main/app/policy-handlers';
import { aguiHandlers } from '../../../src/main/agui/agui-handlers';
import type { Handlers } from '../../../src/main/ipc/dispatcher';
import { joinHandlerTables, type HandlerTable } from '../../../src/main/ipc/handler-table';
import { nfcHandlers } from '../../../src/main/nfc/nfc-handlers';
import { photoHandlers } from '../../../src/main/photo/photo-handlers';
import { kioskHandlers } from '../../../src/main/app/kiosk';
import { speechHandlers } from '../../../src/main/speech/speech-handlers';
import { talkieHandlers } from '../../../src/main/talkie/talkie-handlers';
import { talkieConversationHandlers } from '../../../src/main/app/talkie-conversation';
import { conversationHandlers } from '../../../src/main/conversation/conversation-handlers';
import { methodNames } from '../../../src/shared/ipc/contract';

/** Building a table only closes over its services, so stand-ins do for reading its method names. */
const standIn = <T>() => ({}) as T;

describe('the handler tables each folder exports', () => {
  it('answer every contract method exactly once between them, and nothing else', () => {
    const tables = [
      appHandlers({ version: '0', shell: 'web', notices: standIn(), settings: standIn(), uiMemory: standIn(), openExternal: standIn(), media: standIn() }),
      policyHandlers({ devicePolicy: undefined, admin: standIn() }),
      diagnosticsHandlers({ admin: standIn(), collect: standIn(), choosePath: standIn(), log: standIn() }),
      agentsHandlers({ agents: standIn(), settings: standIn(), agui: standIn(), talkie: standIn(), webPages: standIn() }),
      nfcHandlers({ nfc: undefined }),
      photoHandlers({ photos: standIn() }),
      demoHandlers({ talkie: standIn(), demo: standIn(), demoSideUrl: standIn() }),
      aguiHandlers({ agui: standIn() }),
      agentcallHandlers({ agentCall: standIn() }),
      talkieConversationHandlers(talkieHandlers({ talkie: standIn(), voice: standIn() }), { talkie: standIn(), conversations: standIn() }),
      speechHandlers({ speech: standIn(), models: standIn(), events: standIn() }),
      kioskHandlers(standIn()),
      conversationHandlers(standIn()),
    ];
    const named = tables.flatMap((table) => Object.keys(table));
    expect([...named].sort()).toEqual([...methodNames].sort());
    expect(new Set(named).size).toBe(named.length);
  });

  it('join into one table the types check for a method claimed twice or missing', () => {
    const photo: HandlerTable<'photo'> = { 'photo.stage': standIn(), 'photo.discard': () => ({ discarded: true }) };
    const agui = aguiHandlers({ agui: standIn() });
    expect(Object.keys(joinHandlerTables(agui, photo))).toEqual([...Object.keys(agui), 'photo.stage', 'photo.discard']);
    // @ts-expect-error photo.* is claimed by two tables
    void joinHandlerTables(photo, agui, photo);
    // @ts-expect-error talkie.*, agents.*, … have no handler
    const missing: Handlers = joinHandlerTables(agui, photo);
    void missing;
  });
});
