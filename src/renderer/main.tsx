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
import './styles/chat.css';
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
