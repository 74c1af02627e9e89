import type { ReactNode } from 'react';
import type { IpcError } from '../../shared/base/errors';
import type { ConversationView } from '../../shared/conversation/view';
import type { AgentDeskApi } from '../../shared/ipc/api';
import type { ComposerHandle } from '../components/Composer';
import type { ChatEnvironment } from '../components/ChatContext';
import type { AgentStatus } from '../hooks/useAgentStatus';
import type { MessageKey } from '../i18n/strings';
import type { ConversationState, ConversationStore } from './conversation-store';
import type { ItemActions } from './item-actions';
import type { ItemViews } from './Transcript';

/** What a protocol's part of the screen is given. */
export interface ProfileInput {
  api: AgentDeskApi;
  agentId: string;
  label: string;
  store: ConversationStore;
  state: ConversationState;
  view: ConversationView | undefined;
  /** The composer's field and handle (Edit puts text back in it; tools move focus to it). */
  composer: { field: () => HTMLTextAreaElement | null; handle: () => ComposerHandle | null };
  /** Closes the details dialog (an action in it that changes the screen, such as Sign out). */
  closeDetails: () => void;
}

/**
 * A protocol's share of the one conversation screen (src/renderer/conversation/protocols/): what only
 * it knows — the steps before the conversation (sign-in), the views of its own item kinds, what the
 * user can do with items, the composer's tools, the call bar, the agent's details. Everything else (the
 * transcript, the composer, the status line, the header, the window) is the screen's, the same for all.
 */
export interface ProtocolProfile {
  /** The agent's own name, once the protocol knows it (a Talkie manifest's, a card's). */
  title?: string;
  /** A Talkie server's accent colour for the header. */
  accent?: string;
  logo?: ReactNode;
  /** Shown instead of the conversation while the agent cannot be talked to yet (sign in, accept addresses, a token). */
  gate?: ReactNode;
  /** The agent's status for the sidebar while the gate shows (connecting, sign-in needed, …). */
  status?: AgentStatus;
  views: ItemViews;
  actions: ItemActions;
  environment: ChatEnvironment;
  /** Scan, Photo, Talk, the intent: the composer's row. */
  tools?: ReactNode;
  /** A call in progress: its bar, above the composer. */
  callBar?: ReactNode;
  /** The agent's details: what the info button opens (description, version, address, what it accepts, web pages, connection settings). */
  details: ReactNode;
  /** The header's own actions (New chat, End session). */
  headerActions?: ReactNode;
  /** The sidebar's part under the agent (its threads, its session). */
  sidebar?: ReactNode;
  /** The composer: its draft's key, its limit, whether it can take text now, what it says while editing. */
  composer: {
    draftKey: string;
    max?: number;
    /** Why the composer cannot take text now (undefined: it can). */
    blocked?: MessageKey;
    notice?: ReactNode;
    onEditLast?: () => void;
    onEscape?: () => boolean;
    /** Sends through the protocol instead of `conversation.send` (none: the conversation's). */
    send?: (text: string) => Promise<IpcError | undefined>;
  };
  /** Extra status words when the conversation waits for the user (a scan, a photo, an answer). */
  waitingText?: string;
  /** Below the status line: Retry and its failure, when the protocol offers one. */
  statusExtra?: ReactNode;
  /** What an empty conversation says. */
  empty?: string;
  /**
   * At the end of the transcript, after the items: what exists only on this machine until the user
   * sends it (AgentCall: a tag just read, a photo just taken, each with Send and Discard).
   */
  pending?: ReactNode;
  /** Over the screen: the protocol's dialogs and drop hints (AgentCall: the photo dialog, a picture dragged over the window). */
  overlay?: ReactNode;
}
