import type { Message, ToolCall } from '@ag-ui/core';
import { encryptedValueOf } from './encrypted';
import type { AguiThreadView } from './types';

/**
 * The AG-UI message history to send as the next RunAgentInput.messages: user, assistant (with
 * their tool calls), tool results, system/developer and reasoning messages, in order. Activity
 * messages stay local (as @ag-ui/client does). Encrypted values go back where @ag-ui/client puts
 * them: `encryptedValue` on the message (reasoning, assistant, …) and on the tool call entry.
 */
export function historyMessages(view: AguiThreadView): Message[] {
  const out = plainHistory(view);
  if (view.encryptedValues === undefined) return out;
  for (const message of out) {
    const sealed = message.role === 'activity' ? undefined : encryptedValueOf(view, 'message', message.id);
    if (sealed !== undefined) (message as { encryptedValue?: string }).encryptedValue = sealed;
    if (message.role !== 'assistant' || message.toolCalls === undefined) continue;
    message.toolCalls = message.toolCalls.map((call) => {
      const value = encryptedValueOf(view, 'tool-call', call.id);
      return value === undefined ? call : { ...call, encryptedValue: value };
    });
  }
  return out;
}

function plainHistory(view: AguiThreadView): Message[] {
  const out: Message[] = [];
  const assistants = new Map<string, Extract<Message, { role: 'assistant' }>>();
  const attribution = (item: { subagentRunId?: string }) => (item.subagentRunId === undefined ? {} : { subagentRunId: item.subagentRunId });
  for (const item of view.items) {
    switch (item.kind) {
      case 'user':
        out.push({ id: item.id, role: 'user', content: item.text, ...attribution(item) });
        break;
      case 'text': {
        if (item.role === 'assistant') {
          const existing = assistants.get(item.id);
          if (existing) existing.content = item.text;
          else {
            const message: Extract<Message, { role: 'assistant' }> = {
              id: item.id,
              role: 'assistant',
              content: item.text,
              ...(item.name === undefined ? {} : { name: item.name }),
              ...attribution(item),
            };
            assistants.set(item.id, message);
            out.push(message);
          }
        } else {
          out.push({ id: item.id, role: item.role, content: item.text, ...(item.name === undefined ? {} : { name: item.name }), ...attribution(item) });
        }
        break;
      }
      case 'reasoning':
        out.push({ id: item.id, role: 'reasoning', content: item.text, ...attribution(item) });
        break;
      case 'toolCall': {
        if (item.started) {
          const parentId = item.parentMessageId ?? item.id;
          let parent = assistants.get(parentId);
          if (!parent) {
            parent = { id: parentId, role: 'assistant', ...attribution(item) };
            assistants.set(parentId, parent);
            out.push(parent);
          }
          const call: ToolCall = { id: item.id, type: 'function', function: { name: item.name, arguments: item.argsText } };
          parent.toolCalls = [...(parent.toolCalls ?? []), call];
        }
        if (item.result) {
          out.push({
            id: item.result.messageId,
            role: 'tool',
            toolCallId: item.id,
            content: item.result.text,
            ...(item.result.error === undefined ? {} : { error: item.result.error }),
            ...attribution(item),
          });
        }
        break;
      }
      default:
        break;
    }
  }
  return out;
}
