import { builtInAgentCallDemoId, builtInAguiDemoId } from '../../shared/ipc/contract';
import type { HandlerTable } from '../ipc/handler-table';
import type { DemoPort, TalkieService } from '../talkie/talkie-service';

/** `demo.*`: opening one side of the built-in demo agent (Talkie, AgentCall, plain AG-UI), started on first use. */
export function demoHandlers({
  talkie,
  demo,
  demoSideUrl,
}: {
  talkie: Pick<TalkieService, 'openDemo'>;
  demo: DemoPort;
  /** The address of one of the demo's sides, or not_found when this run has none. */
  demoSideUrl: (side: 'aguiUrl') => Promise<string>;
}): HandlerTable<'demo'> {
  return {
    'demo.open': () => talkie.openDemo(),
    'demo.openAgentCall': async () => {
      await demo.start();
      return { agentId: builtInAgentCallDemoId };
    },
    'demo.openAgui': async () => {
      await demoSideUrl('aguiUrl');
      return { agentId: builtInAguiDemoId };
    },
  };
}
