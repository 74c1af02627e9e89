import type { Modality } from '../../../../shared/agentcall/protocol';
import type { AgentDeskApi } from '../../../../shared/ipc/api';
import type { IpcError } from '../../../../shared/base/errors';
import type { NfcObservationResult } from '../../../screens/nfc/ScanControl';

/**
 * What an AgentCall item can do, given by the AgentCall profile (protocols/agentcall.tsx) through
 * the items' actions: answer the agent's request, its teaching proposal or a passport's action, and
 * start a new session after the end. Every answer goes to main from the user's own click.
 */
export interface AgentCallItemActions {
  api: AgentDeskApi;
  agentName: string;
  /** The session takes answers now (established, not ended). */
  live: boolean;
  /** What the user may send in this session (a request for anything else can only be declined). */
  usable: readonly Modality[];
  /** The proposal Confirm/Cancel act on, the passport whose actions may be asked for: the newest shown ones. */
  currentProposalId: string | undefined;
  currentPassportId: string | undefined;
  answerProposal(proposalId: string, answer: 'confirm' | 'cancel'): Promise<IpcError | undefined>;
  confirmRecipe(passportId: string, recipeId: string): Promise<IpcError | undefined>;
  /** Declines the agent's pending request. */
  decline(): Promise<IpcError | undefined>;
  /** A tag read for the agent's request: it waits at the end of the conversation for Send. */
  tagRead(scan: NfcObservationResult, interactionId: string): void;
  /** Opens the photo dialog for the agent's request. */
  takePhoto(interactionId: string): void;
  /** The thumbnail of a photo sent in this session, by its SHA-256 (while this page has it). */
  thumbnail(sha256: string): string | undefined;
  /** Start a new session (after the end). */
  renew(): void;
}
