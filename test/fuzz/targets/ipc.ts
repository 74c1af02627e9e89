import fc from 'fast-check';
import { createDispatcher, type Handlers } from '../../../src/main/ipc/dispatcher';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { contract, eventNames, methodChannel, methodNames, type EventName } from '../../../src/shared/ipc/contract';
import { ipcErrorCodes, ServiceError, type IpcErrorCode } from '../../../src/shared/ipc/errors';
import { memoryLogger } from '../../support/logger';
import { anyJson, aroundZod, check, isJsonSerializable, nastyStrings, target, viaJson } from '../kit';

/** Every IPC schema, the dispatcher and the event bus: arbitrary JSON never throws, every answer is an IpcResult. */

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown } };

const schemas: { name: string; schema: Schema }[] = [
  ...methodNames.flatMap((method) => [
    { name: `${method} request`, schema: contract.methods[method].request as Schema },
    { name: `${method} response`, schema: contract.methods[method].response as Schema },
  ]),
  ...eventNames.map((event) => ({ name: `${event} event`, schema: contract.events[event] as Schema })),
];

const schemaInput = fc.integer({ min: 0, max: schemas.length - 1 }).chain((index) => fc.record({ index: fc.constant(index), value: aroundZod(schemas[index]!.schema as never) }));

export const ipcSchemasTarget = target({
  name: 'ipc.schemas',
  weight: 8,
  arbitrary: schemaInput,
  property: ({ index, value }) => {
    const { name, schema } = schemas[index]!;
    const parsed = schema.safeParse(value);
    if (!parsed.success) return;
    // What a schema accepts crosses the web shell as JSON text: it must still be accepted on the other side.
    check(isJsonSerializable(parsed.data), `${name}: the accepted value is JSON`);
    const again = schema.safeParse(viaJson(parsed.data));
    check(again.success, `${name}: the accepted value is refused after a JSON round trip`);
  },
});

type Behaviour = { kind: 'return'; value: unknown } | { kind: 'service'; code: IpcErrorCode; message: string; path: string | undefined; retryable: boolean | undefined } | { kind: 'throw'; value: unknown };

const methodInput = fc.integer({ min: 0, max: methodNames.length - 1 }).chain((index) => {
  const method = methodNames[index]!;
  const spec = contract.methods[method];
  return fc.record({
    channel: fc.oneof({ weight: 8, arbitrary: fc.constant(methodChannel(method)) }, { weight: 1, arbitrary: fc.constantFrom('agentdesk:__proto__', 'agentdesk:constructor', 'agentdesk:', method, 'agentdesk:event:settings.changed') }, { weight: 1, arbitrary: fc.string().map((text) => `agentdesk:${text}`) }),
    payload: aroundZod(spec.request as never),
    behaviour: fc.oneof(
      { weight: 5, arbitrary: aroundZod(spec.response as never).map((value): Behaviour => ({ kind: 'return', value })) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('service' as const), code: fc.constantFrom(...ipcErrorCodes), message: fc.oneof(fc.string(), fc.constantFrom(...nastyStrings)), path: fc.option(fc.string(), { nil: undefined }), retryable: fc.option(fc.boolean(), { nil: undefined }) }) },
      { weight: 1, arbitrary: fc.oneof(anyJson, fc.constant(new Error('EACCES /home/user/secret')), fc.constant(undefined)).map((value): Behaviour => ({ kind: 'throw', value })) },
    ),
    async: fc.boolean(),
  });
});

export const dispatcherTarget = target({
  name: 'ipc.dispatcher',
  weight: 7,
  arbitrary: methodInput,
  property: async ({ channel, payload, behaviour, async }) => {
    let called = 0;
    const handler = () => {
      called += 1;
      const act = () => {
        if (behaviour.kind === 'return') return behaviour.value;
        if (behaviour.kind === 'service') throw new ServiceError(behaviour.code, behaviour.message, behaviour.path, behaviour.retryable);
        throw behaviour.value;
      };
      return async ? Promise.resolve().then(act) : act();
    };
    const handlers = Object.fromEntries(methodNames.map((method) => [method, handler])) as unknown as Handlers;
    const dispatcher = createDispatcher(handlers, memoryLogger());
    const declared = channel.startsWith('agentdesk:') && Object.hasOwn(contract.methods, channel.slice('agentdesk:'.length));
    const pending = dispatcher.dispatch(channel, payload, { hasRecentUserGesture: () => true });
    const result = await pending;
    if (!declared) {
      check(called === 0, `an undeclared channel ${channel} ran something`);
      check(!result.ok && result.error.code === 'unknown_channel', `an undeclared channel ${channel} is answered unknown_channel`);
      return;
    }
    check(isJsonSerializable(result), 'the answer is JSON');
    const method = channel.slice('agentdesk:'.length) as keyof typeof contract.methods;
    if (result.ok) {
      check(called === 1, 'an ok answer comes from the handler');
      check(contract.methods[method].response.safeParse(viaJson(result.value)).success, 'an ok answer matches the response schema');
    } else {
      check((ipcErrorCodes as readonly string[]).includes(result.error.code) && typeof result.error.message === 'string', `error code ${result.error.code}`);
      if (result.error.code === 'invalid_request' && !(behaviour.kind === 'service' && behaviour.code === 'invalid_request')) check(called === 0, 'an invalid request never reaches the handler');
      if (result.error.code === 'internal') check(!result.error.message.includes('secret'), 'an internal error hides its details');
    }
  },
});

const eventInput = fc.integer({ min: 0, max: eventNames.length - 1 }).chain((index) => fc.record({ event: fc.constant(eventNames[index]!), payload: aroundZod(contract.events[eventNames[index]!] as never) }));

export const eventBusTarget = target({
  name: 'ipc.events',
  weight: 4,
  arbitrary: eventInput,
  property: ({ event, payload }) => {
    const bus = new EventBus(memoryLogger());
    const sent: { channel: string; text: string }[] = [];
    bus.connect((channel, value) => void sent.push({ channel, text: JSON.stringify(value) }));
    bus.connect(() => {
      throw new Error('a page that went away');
    });
    bus.emit(event as EventName, payload as never);
    check(sent.length <= 1, 'one delivery per sink');
    for (const delivery of sent) check(contract.events[event as EventName].safeParse(JSON.parse(delivery.text)).success, `${event}: a delivered event matches its schema on the other side`);
  },
});
