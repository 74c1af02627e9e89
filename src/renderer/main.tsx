import './zod-config';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connectBridge, type Bridge } from './bridge/agentdesk';
import { installFileDropGuard } from './hooks/useWindowFileDrop';
import { Root } from './Root';
import './styles/tokens.css';
import './styles/base.css';
import './styles/components.css';
import './styles/screens.css';
// The chat screen's styles, in this order (a later file's rules override an earlier one's).
import './styles/chat/header.css';
import './styles/chat/panels.css';
import './styles/chat/layout.css';
import './styles/chat/threads.css';
import './styles/chat/account.css';
import './styles/chat/transcript.css';
import './styles/chat/markdown.css';
import './styles/chat/links.css';
import './styles/chat/tool-lines.css';
import './styles/chat/cards.css';
import './styles/chat/actions.css';
import './styles/chat/composer.css';
import './styles/kiosk.css';

function findBridge(): Bridge {
  try {
    return connectBridge();
  } catch {
    // For example WebSocket is unavailable: the page cannot reach the app either way.
    return { kind: 'missing' };
  }
}

installFileDropGuard();

const container = document.getElementById('root');
if (container) {
  createRoot(container).render(
    <StrictMode>
      <Root bridge={findBridge()} />
    </StrictMode>,
  );
}
