import type { FuzzTarget } from './kit';
import { agentCallTarget, sseTarget } from './targets/streams';
import { jsonPatchTarget, resumeTarget, responseFormTarget, runModelTarget } from './targets/agui';
import { cardTarget, manifestTarget, uiLinksTarget } from './targets/documents';
import { savedFilesTarget, threadTextTarget } from './targets/files';
import { jpegMarkersTarget, ndefTarget, photoTarget, type2Target } from './targets/hardware';
import { dispatcherTarget, eventBusTarget, ipcSchemasTarget, webShellFramesTarget } from './targets/ipc';
import { realtimeStreamTarget, voiceCallTarget } from './targets/voice';
import { devicePolicyTarget } from './targets/policy';
import { conversationServiceTarget } from './targets/conversation';

/**
 * Every fuzz target, in the order `npm run fuzz` runs them. Each has a name, an input generator
 * (random and structured around valid examples), a property and a budget weight; see kit.ts.
 * `npm test` runs each with a small budget (test/unit/fuzz/fuzz-targets.test.ts).
 */
export const fuzzTargets: readonly FuzzTarget[] = [
  manifestTarget,
  cardTarget,
  uiLinksTarget,
  sseTarget,
  agentCallTarget,
  voiceCallTarget,
  realtimeStreamTarget,
  runModelTarget,
  conversationServiceTarget,
  jsonPatchTarget,
  responseFormTarget,
  resumeTarget,
  ndefTarget,
  type2Target,
  jpegMarkersTarget,
  photoTarget,
  ipcSchemasTarget,
  dispatcherTarget,
  eventBusTarget,
  webShellFramesTarget,
  threadTextTarget,
  savedFilesTarget,
  devicePolicyTarget,
];
