import type { AguiThreadView } from '../../src/shared/agui/run-model';
import type { EventPayload, MethodName, MethodResponse } from '../../src/shared/ipc/contract';
import type { IpcResult } from '../../src/shared/base/errors';

const ended = new Set<AguiThreadView['runState']>(['finished', 'awaitingInput', 'cancelled', 'error', 'dropped']);

interface App {
  call<M extends MethodName>(method: M, payload?: unknown, gesture?: boolean): Promise<IpcResult<MethodResponse<M>>>;
  events: { connect(sink: (channel: string, payload: unknown) => void): () => void };
}

function value<T>(result: IpcResult<T>): T {
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

/**
 * Plain AG-UI runs followed as the page follows them: through the agent's conversation
 * (`conversation.open`; main's conversation source follows the thread with `AguiService.watch` and
 * sends `conversation.update` whenever it changed). `ended` answers main's thread (`agui.open`, as
 * main shows it) once the run of that id has ended, `until` once a test holds for it; `updates`
 * holds every conversation update sent.
 */
export function followAguiRuns(app: App) {
  const updates: EventPayload<'conversation.update'>[] = [];
  const changed = new Set<(update: EventPayload<'conversation.update'>) => void>();
  app.events.connect((channel, payload) => {
    if (channel !== 'agentdesk:event:conversation.update') return;
    const update = payload as EventPayload<'conversation.update'>;
    updates.push(update);
    for (const listener of [...changed]) listener(update);
  });
  const open = new Set<string>();
  /** Opens the agent's conversation (once): from then on, every change of its thread is an update. */
  const follow = async (agentId: string): Promise<void> => {
    if (open.has(agentId)) return;
    open.add(agentId);
    value(await app.call('conversation.open', { agentId }));
  };
  /**
   * Main's thread once `test` holds for it, checked at every update of the agent's conversation — or,
   * `whenIdle`, only when the conversation says no run goes (main says so once a run is wholly over).
   */
  const until = async (agentId: string, test: (thread: AguiThreadView) => boolean, whenIdle = false): Promise<AguiThreadView> => {
    await follow(agentId);
    return new Promise<AguiThreadView>((resolve, reject) => {
      const check = () => {
        void app.call('agui.open', { agentId }).then((result) => {
          if (!changed.has(listener)) return;
          if (!result.ok) {
            changed.delete(listener);
            return reject(new Error(`${result.error.code}: ${result.error.message}`));
          }
          if (!test(result.value.thread)) return;
          changed.delete(listener);
          resolve(result.value.thread);
        });
      };
      const listener = (update: EventPayload<'conversation.update'>) => {
        if (update.agentId !== agentId) return;
        if (!whenIdle || update.ops.some((op) => (op.op === 'status' && op.status.run === 'idle') || (op.op === 'reset' && op.view.status.run === 'idle')))
          check();
      };
      changed.add(listener);
      void app.call('conversation.open', { agentId }).then((opened) => {
        if (opened.ok && (!whenIdle || opened.value.status.run === 'idle')) check();
      });
    });
  };
  return {
    updates,
    follow,
    until,
    ended: (agentId: string, runId: string) => until(agentId, (thread) => thread.runId === runId && ended.has(thread.runState), true),
  };
}

/** Sends a run's call and waits for its end: its id and main's thread then. */
export async function runToEnd(
  runs: ReturnType<typeof followAguiRuns>,
  agentId: string,
  call: Promise<IpcResult<{ runId: string }>>,
): Promise<{ runId: string; thread: AguiThreadView }> {
  const { runId } = value(await call);
  return { runId, thread: await runs.ended(agentId, runId) };
}
