import { createContext, useContext, type KeyboardEvent, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

/** The place under the open agent in the shell's sidebar, where that agent's screen puts its threads or its session. */
export interface SidebarPlaceValue {
  /** The element under the open agent's entry (null until it rendered, or when no entry is open). */
  element: HTMLElement | null;
  /** The agent whose entry holds `element`. */
  agentId: string | undefined;
  /** The user picked a thread or started a new one there: in a narrow window the drawer closes. */
  onPicked: () => void;
  /** The drawer's own keys (Escape closes it) for what is shown there from elsewhere in the React tree. */
  onKeyDown: (event: KeyboardEvent<HTMLElement>) => void;
}

export const SidebarPlaceContext = createContext<SidebarPlaceValue>({
  element: null,
  agentId: undefined,
  onPicked: () => undefined,
  onKeyDown: () => undefined,
});

export function useSidebarPlace(): SidebarPlaceValue {
  return useContext(SidebarPlaceContext);
}

/**
 * Shows `children` under the agent's entry in the shell's sidebar (in the drawer in a narrow window):
 * a portal, so the screen keeps its state and the sidebar shows it. Where the sidebar has no place for
 * this agent (a screen rendered alone), the children stay where they are.
 */
export function InSidebar({ agentId, children }: { agentId: string; children: ReactNode }) {
  const place = useSidebarPlace();
  if (place.element === null || place.agentId !== agentId) return <div className="agent-place agent-place--inline">{children}</div>;
  return createPortal(
    // React events from here bubble to the screen, not to the sidebar: the drawer's keys are handled here too.
    <div className="agent-place" onKeyDown={place.onKeyDown}>
      {children}
    </div>,
    place.element,
  );
}
