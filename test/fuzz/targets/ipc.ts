import fc from 'fast-check';
import { createDispatcher, type Handlers } from '../../../src/main/ipc/dispatcher';
import { EventBus } from '../../../src/main/ipc/event-bus';
import { contract, eventNames, methodChannel, methodNames, type EventName } from '../../../src/shared/ipc/contract';
import { ipcErrorCodes, ServiceError, type IpcErrorCode } from '../../../src/shared/base/errors';
import { decodeWireFrame, encodeWireFrame, maxBinaryParts } from '../../../src/shared/ipc/web-shell-protocol';
import { memoryLogger } from '../../support/logger';
import { anyJson, aroundZod, check, mutatedBytes, nastyStrings, target } from '../kit';

/** Every IPC schema, the dispatcher, the event bus and the web shell's frames: arbitrary input never throws, every answer is an IpcResult. */

/**
 * A value as the other side receives it from the web shell (a JSON text or binary frame), or
 * undefined when it cannot be sent. Electron's structured clone carries at least as much.
 */
function viaWire(value: unknown): { value: unknown } | undefined {
  let encoded: string | Uint8Array;
  try {
    encoded = encodeWireFrame(value);
  } catch {
    return undefined;
  }
  if (typeof encoded !== 'string' && typeof encoded !== 'object') return undefined;
  const decoded = decodeWireFrame(encoded);
  return decoded.ok ? { value: decoded.value } : undefined;
}

type Schema = { safeParse(value: unknown): { success: boolean; data?: unknown } };

const schemas: { name: string; schema: Schema }[] = [
  ...methodNames.flatMap((method) => [
    { name: `${method} request`, schema: contract.methods[method].request as Schema },
    { name: `${method} response`, schema: contract.methods[method].response as Schema },
  ]),
  ...eventNames.map((event) => ({ name: `${event} event`, schema: contract.events[event] as Schema })),
];

const schemaInput = fc
  .integer({ min: 0, max: schemas.length - 1 })
  .chain((index) => fc.record({ index: fc.constant(index), value: aroundZod(schemas[index]!.schema as never) }));

export const ipcSchemasTarget = target({
  name: 'ipc.schemas',
  weight: 8,
  arbitrary: schemaInput,
  property: ({ index, value }) => {
    const { name, schema } = schemas[index]!;
    const parsed = schema.safeParse(value);
    if (!parsed.success) return;
    // What a schema accepts crosses the web shell as a text or binary frame, Electron's IPC as a structured clone: the other side still accepts it.
    const wire = viaWire(parsed.data);
    check(wire !== undefined, `${name}: the accepted value can be sent as a web shell frame`);
    check(schema.safeParse(wire.value).success, `${name}: the accepted value is refused after a web shell frame round trip`);
    check(schema.safeParse(structuredClone(parsed.data)).success, `${name}: the accepted value is refused after a structured clone`);
  },
});

type Behaviour =
  | { kind: 'return'; value: unknown }
  | { kind: 'service'; code: IpcErrorCode; message: string; path: string | undefined; retryable: boolean | undefined }
  | { kind: 'throw'; value: unknown };

const methodInput = fc.integer({ min: 0, max: methodNames.length - 1 }).chain((index) => {
  const method = methodNames[index]!;
  const spec = contract.methods[method];
  return fc.record({
    channel: fc.oneof(
      { weight: 8, arbitrary: fc.constant(methodChannel(method)) },
      { weight: 1, arbitrary: fc.constantFrom('agentdesk:__proto__', 'agentdesk:constructor', 'agentdesk:', method, 'agentdesk:event:settings.changed') },
      { weight: 1, arbitrary: fc.string().map((text) => `agentdesk:${text}`) },
    ),
    payload: aroundZod(spec.request as never),
    behaviour: fc.oneof(
      { weight: 5, arbitrary: aroundZod(spec.response as never).map((value): Behaviour => ({ kind: 'return', value })) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('service' as const),
          code: fc.constantFrom(...ipcErrorCodes),
          message: fc.oneof(fc.string(), fc.constantFrom(...nastyStrings)),
          path: fc.option(fc.string(), { nil: undefined }),
          retryable: fc.option(fc.boolean(), { nil: undefined }),
        }),
      },
      {
        weight: 1,
        arbitrary: fc
          .oneof(anyJson, fc.constant(new Error('EACCES /home/user/secret')), fc.constant(undefined))
          .map((value): Behaviour => ({ kind: 'throw', value })),
      },
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
    const wire = viaWire(result);
    check(wire !== undefined, 'the answer can be sent as a web shell frame');
    const method = channel.slice('agentdesk:'.length) as keyof typeof contract.methods;
    if (result.ok) {
      check(called === 1, 'an ok answer comes from the handler');
      check(contract.methods[method].response.safeParse((wire.value as { value: unknown }).value).success, 'an ok answer matches the response schema');
    } else {
      check((ipcErrorCodes as readonly string[]).includes(result.error.code) && typeof result.error.message === 'string', `error code ${result.error.code}`);
      if (result.error.code === 'invalid_request' && !(behaviour.kind === 'service' && behaviour.code === 'invalid_request'))
        check(called === 0, 'an invalid request never reaches the handler');
      if (result.error.code === 'internal') check(!result.error.message.includes('secret'), 'an internal error hides its details');
    }
  },
});

const eventInput = fc
  .integer({ min: 0, max: eventNames.length - 1 })
  .chain((index) => fc.record({ event: fc.constant(eventNames[index]!), payload: aroundZod(contract.events[eventNames[index]!] as never) }));

export const eventBusTarget = target({
  name: 'ipc.events',
  weight: 4,
  arbitrary: eventInput,
  property: ({ event, payload }) => {
    const bus = new EventBus(memoryLogger());
    const sent: { channel: string; frame: string | Uint8Array }[] = [];
    bus.connect((channel, value) => void sent.push({ channel, frame: encodeWireFrame(value) }));
    bus.connect(() => {
      throw new Error('a page that went away');
    });
    bus.emit(event as EventName, payload as never);
    check(sent.length <= 1, 'one delivery per sink');
    for (const delivery of sent) {
      const decoded = decodeWireFrame(delivery.frame);
      check(
        decoded.ok && contract.events[event as EventName].safeParse(decoded.value).success,
        `${event}: a delivered event matches its schema on the other side`,
      );
    }
  },
});

/** Byte-carrying frames as the page sends them (the seeds of the binary-frame target). */
const binarySeeds = [
  { t: 'call', id: 1, channel: 'agentdesk:photo.stage', payload: { kind: 'frame', width: 2, height: 1, rgba: Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8) } },
  { t: 'call', id: 2, channel: 'agentdesk:photo.stage', payload: { kind: 'file', bytes: Uint8Array.of(0xff, 0xd8, 0xff, 0xd9) }, activation: true },
  {
    t: 'event',
    channel: 'agentdesk:event:x',
    payload: { chunks: [Uint8Array.of(1), new Uint8Array(0), Uint8Array.of(2, 3)], '{"$bytes":0}': { $bytes: 'no', x: 1 } },
  },
].map((frame) => encodeWireFrame(frame) as Uint8Array);

const bytesLeaf = fc.uint8Array({ maxLength: 40 });
const valueWithBytes: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    anyJson,
    bytesLeaf,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('$bytes', '__proto__')), tie('node'), { maxKeys: 4 }),
  ),
})).node;

const countBytes = (value: unknown): number =>
  value instanceof Uint8Array
    ? 1
    : Array.isArray(value)
      ? value.reduce<number>((sum, entry) => sum + countBytes(entry), 0)
      : value !== null && typeof value === 'object'
        ? Object.values(value).reduce<number>((sum, entry) => sum + countBytes(entry), 0)
        : 0;

/** The web shell's binary frames: damaged frames are refused with a reason, never a throw; values with bytes round-trip. */
export const webShellFramesTarget = target({
  name: 'ipc.webShellFrames',
  weight: 4,
  arbitrary: fc.oneof(
    {
      weight: 3,
      arbitrary: mutatedBytes(binarySeeds, { insertions: [[0, 0, 0, 0], [0xff, 0xff, 0xff, 0xff], [0x7b, 0x22, 0x24], [0xc3]] }).map((bytes) => ({
        kind: 'bytes' as const,
        bytes,
      })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ kind: 'bytes' as const, bytes })) },
    { weight: 2, arbitrary: valueWithBytes.map((value) => ({ kind: 'value' as const, value })) },
  ),
  property: (input) => {
    if (input.kind === 'bytes') {
      const decoded = decodeWireFrame(input.bytes);
      if (!decoded.ok) check(typeof decoded.reason === 'string' && decoded.reason.length > 0, 'a refused frame says why');
      return;
    }
    let encoded: string | Uint8Array;
    try {
      encoded = encodeWireFrame(input.value);
    } catch (error) {
      const message = error instanceof RangeError ? error.message : '';
      check(
        (/at most 16 byte fields/.test(message) && countBytes(input.value) > maxBinaryParts) || /only field is "\$bytes"/.test(message),
        () => `encoding threw ${String(error)}`,
      );
      return;
    }
    check((typeof encoded === 'string') === (countBytes(input.value) === 0), 'text exactly when there are no bytes');
    const decoded = decodeWireFrame(encoded);
    check(decoded.ok, () => `a frame the codec made is refused: ${decoded.ok ? '' : decoded.reason}`);
    const expected = JSON.stringify(input.value, (_key, entry: unknown) => (entry instanceof Uint8Array ? { bytes: [...entry] } : entry));
    const actual = JSON.stringify(decoded.value, (_key, entry: unknown) => (entry instanceof Uint8Array ? { bytes: [...entry] } : entry));
    check(expected === actual, 'the value round-trips');
  },
});
