import { z } from 'zod';
import { settingsPatchSchema, settingsSchema } from '../settings/settings';

/**
 * THE IPC contract: every method the renderer may call and every event it may subscribe to.
 *
 * - The preload builds `window.agentdesk` from this object (one function per method, one
 *   subscribe function per event); the web shell builds the same API over a WebSocket.
 * - Main registers one handler per method from this object and validates every request against
 *   `request` before the service sees it, and every answer against `response` before it leaves
 *   (schemas are strict: an answer carrying an undeclared field, say a token added to a service
 *   object by mistake, is refused instead of crossing).
 * - Method `settings.get` becomes channel `agentdesk:settings.get` and `window.agentdesk.settings.get()`;
 *   event `settings.changed` becomes channel `agentdesk:event:settings.changed` and
 *   `window.agentdesk.settings.onChanged(listener)`.
 *
 * Adding a capability means adding entries here; the types of both sides follow.
 */

const empty = z.strictObject({});

export const agentEntrySchema = z.strictObject({
  id: z.string().min(1).max(64),
  /** Normalized URL the user added (host or manifest/card URL). */
  url: z.string().max(2048),
  /** What the list shows: host[:port][/path]. */
  display: z.string().max(2100),
  addedAt: z.string().max(40),
});
export type AgentEntry = z.infer<typeof agentEntrySchema>;

export const nfcStatusSchema = z.strictObject({
  /**
   * `unavailable`: this build has no NFC reader support yet, or the smart-card service is missing.
   * `ready`: the reader service runs; `readers` lists what is connected.
   */
  state: z.enum(['unavailable', 'ready']),
  readers: z.array(z.strictObject({ name: z.string().max(200), connected: z.boolean() })).max(16),
  /** Why NFC is unavailable, for the hardware strip. */
  detail: z.string().max(500).optional(),
});

export const hardwareStatusSchema = z.strictObject({
  nfc: nfcStatusSchema,
});
export type HardwareStatus = z.infer<typeof hardwareStatusSchema>;

export const mediaKindSchema = z.enum(['camera', 'microphone']);
export type MediaKind = z.infer<typeof mediaKindSchema>;

export const contract = {
  methods: {
    'app.info': {
      request: empty,
      response: z.strictObject({
        name: z.string(),
        version: z.string(),
        /** Which host runs the main services: the Electron app or the web shell. */
        shell: z.enum(['electron', 'web']),
        platform: z.string(),
        /** Messages for the user from start-up, for example a settings file that was moved aside. */
        notices: z.array(z.string().max(1000)).max(20),
      }),
    },
    'settings.get': { request: empty, response: settingsSchema },
    'settings.update': { request: z.strictObject({ patch: settingsPatchSchema }), response: settingsSchema },
    'agents.list': { request: empty, response: z.strictObject({ agents: z.array(agentEntrySchema) }) },
    'agents.add': {
      request: z.strictObject({ address: z.string().max(4096) }),
      response: z.strictObject({ agent: agentEntrySchema }),
    },
    'agents.remove': {
      request: z.strictObject({ id: z.string().min(1).max(64) }),
      response: z.strictObject({ agents: z.array(agentEntrySchema) }),
    },
    'hardware.status': { request: empty, response: hardwareStatusSchema },
    /** Opens an https: link in the system browser; main also checks that the user just clicked. */
    'external.open': {
      request: z.strictObject({ url: z.string().max(8192) }),
      response: z.strictObject({ opened: z.literal(true) }),
    },
    /** The UI is about to open the camera or microphone: allow the permission request for these kinds. */
    'media.arm': {
      request: z.strictObject({ kinds: z.array(mediaKindSchema).min(1).max(2) }),
      response: z.strictObject({ armed: z.array(mediaKindSchema) }),
    },
    /** The preview or call closed: permission requests for these kinds are refused again. */
    'media.disarm': {
      request: z.strictObject({ kinds: z.array(mediaKindSchema).min(1).max(2) }),
      response: z.strictObject({ armed: z.array(mediaKindSchema) }),
    },
  },
  events: {
    'settings.changed': settingsSchema,
    'agents.changed': z.strictObject({ agents: z.array(agentEntrySchema) }),
    'hardware.changed': hardwareStatusSchema,
  },
} as const;

export type Contract = typeof contract;
export type MethodName = keyof Contract['methods'];
export type EventName = keyof Contract['events'];
export type MethodRequest<M extends MethodName> = z.input<Contract['methods'][M]['request']>;
export type MethodResponse<M extends MethodName> = z.output<Contract['methods'][M]['response']>;
export type EventPayload<E extends EventName> = z.output<Contract['events'][E]>;

export const channelPrefix = 'agentdesk:';
export const eventChannelPrefix = 'agentdesk:event:';

export function methodChannel(method: MethodName): string {
  return `${channelPrefix}${method}`;
}

export function eventChannel(event: EventName): string {
  return `${eventChannelPrefix}${event}`;
}

export const methodNames = Object.keys(contract.methods) as MethodName[];
export const eventNames = Object.keys(contract.events) as EventName[];

/** The method a channel names, or undefined for any channel the contract does not declare. */
export function methodForChannel(channel: string): MethodName | undefined {
  if (!channel.startsWith(channelPrefix)) return undefined;
  const name = channel.slice(channelPrefix.length);
  return Object.hasOwn(contract.methods, name) ? (name as MethodName) : undefined;
}
