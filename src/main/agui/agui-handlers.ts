import type { HandlerTable } from '../ipc/handler-table';
import type { AguiService } from './agui-service';

/** `agui.*`: a plain AG-UI agent's thread and runs. */
export function aguiHandlers({ agui }: { agui: AguiService }): HandlerTable<'agui'> {
  return {
    'agui.open': ({ agentId }) => agui.open(agentId),
    'agui.send': ({ agentId, messageId, text }) => agui.send(agentId, { messageId, text }),
    'agui.resume': ({ agentId, answers }) => agui.resume(agentId, answers),
    'agui.retry': ({ agentId }) => agui.retry(agentId),
    'agui.cancel': ({ agentId }) => agui.cancel(agentId),
    'agui.newThread': ({ agentId }) => agui.newThread(agentId),
    'agui.threads': ({ agentId }) => agui.threads(agentId),
    'agui.openThread': ({ agentId, threadId }) => agui.openThread(agentId, threadId),
    'agui.deleteThread': ({ agentId, threadId }) => agui.deleteThread(agentId, threadId),
    'agui.setForwardedProps': ({ agentId, json }) => agui.setForwardedProps(agentId, json),
    'agui.useToken': ({ agentId, token }) => agui.useToken(agentId, token),
  };
}
