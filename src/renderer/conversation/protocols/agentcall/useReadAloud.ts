import { useCallback, useState } from 'react';
import { remember, remembered } from '../../../voice/microphone-choice';

const readAloudKey = 'agentdesk.agentcall.readAloud';

/** Whether client-owned voice reads the agent's answers aloud (on unless turned off; remembered in this page). */
export function useReadAloud(): [boolean, (on: boolean) => void] {
  const [on, setOn] = useState(() => remembered(readAloudKey) !== 'off');
  const set = useCallback((next: boolean) => {
    remember(readAloudKey, next ? undefined : 'off');
    setOn(next);
  }, []);
  return [on, set];
}
