/**
 * Benchmark (not a test): Talkie §10 voice on loopback, AgentDesk's main-side path against the bare
 * node-datachannel floor, in one run.
 *
 * 1. Connect, over VOICE_RUNS (default 10) runs of each, alternating, after one warm-up of each:
 *    - floor: two node-datachannel peers, the offer handed straight to the answerer and its answer
 *      straight back (no HTTP): offerer created → `oai-events` open;
 *    - AgentDesk: VoiceService.start (POST voiceSessions to a loopback Talkie server, the §10.1
 *      checks) → the same offerer → VoiceService.offer (postSdpOffer to the loopback signalling
 *      host, which hands it to the same answerer) → setRemoteDescription → `oai-events` open.
 *    Both offerers are createVoiceOfferer's (Opus sendrecv + oai-events, host candidates withheld:
 *    see src/main/cli/voice-peer.ts), so the ratio is what AgentDesk's HTTP and checks add.
 * 2. A provider function call → `function_call_output` back at the provider, over VOICE_CALLS
 *    (default 50) calls on one connection: the provider sends `response.function_call_arguments.done`
 *    on oai-events; the client side parses it with the app's parseRealtimeMessage, calls
 *    VoiceService.tool (POST voiceTool), builds the output with functionCallOutput, passes it
 *    through allowedClientEvent and sends it, then response.create. Printed: the whole, the voiceTool
 *    round trip inside it, an oai-events echo (provider → client → provider, no work), and the
 *    client's own time = whole − voiceTool − echo. Without the renderer: in the app the renderer owns
 *    the RTCPeerConnection and reaches VoiceService over IPC, so its IPC hop and its voice state
 *    machine are not in this figure (they run only in Chromium).
 *
 *   npm run bench:voice             (VOICE_RUNS=20 VOICE_CALLS=100 to change the load)
 */
import * as ndc from 'node-datachannel';
import { createVoiceOfferer, within, type VoiceOfferer } from '../src/main/cli/voice-peer';
import { createLogger } from '../src/main/platform/logger';
import { TalkieClient } from '../src/main/talkie/talkie-client';
import { VoiceService } from '../src/main/talkie/voice-service';
import { validateManifest } from '../src/shared/talkie/manifest';
import { allowedClientEvent, functionCallOutput, parseRealtimeMessage, responseCreate } from '../src/shared/talkie/voice/realtime-events';
import { ndcAnswerer, startVoiceFixture } from '../test/support/talkie-voice-fixture';
import { percentile, printMedianP95 } from './stats';

const runs = Number(process.env.VOICE_RUNS ?? 10);
const calls = Number(process.env.VOICE_CALLS ?? 50);
const openMs = 10_000;

const answerer = ndcAnswerer();
const fixture = await startVoiceFixture({ answer: (offer) => answerer.answer(offer) });
const manifest = validateManifest(await (await fetch(`${fixture.talkie.origin}/.well-known/talkie.json`)).json(), `${fixture.talkie.origin}/.well-known/talkie.json`);
if (!manifest.ok) throw new Error('the fixture manifest is not valid');

/** The Talkie client, timing each voiceTool round trip (the HTTP request as the client sees it). */
class TimedClient extends TalkieClient {
  lastToolMs = 0;
  override async voiceTool(...args: Parameters<TalkieClient['voiceTool']>): Promise<unknown> {
    const started = performance.now();
    try {
      return await super.voiceTool(...args);
    } finally {
      this.lastToolMs = performance.now() - started;
    }
  }
}
const client = new TimedClient(manifest.manifest, { allowLocalHttp: true }, { get: async () => 'dev_token', refresh: async () => undefined });
const voice = new VoiceService({
  talkie: {
    voiceClient: async () => ({ client, policy: { allowLocalHttp: true } }),
    voiceCall: (_agentId, request) => request(),
    action: () => Promise.reject(new Error('The benchmark decides no action.')),
    decide: () => Promise.reject(new Error('The benchmark decides no action.')),
  },
  log: createLogger({ level: 'silent' }),
});

let secrets = 0;
/** A fresh session answer per connection: a new secret (the fixture takes each once) and expiry. */
function freshSession(): void {
  secrets += 1;
  fixture.session.clientSecret = `ek_bench_${secrets}`;
  fixture.session.expiresAt = new Date(Date.now() + 60_000).toISOString();
}

async function floor(): Promise<{ ms: number; offerer: VoiceOfferer }> {
  const started = performance.now();
  const offerer = await createVoiceOfferer('bench-floor');
  offerer.accept(await answerer.answer(offerer.offer));
  await within(offerer.opened, openMs, 'floor: oai-events did not open');
  return { ms: performance.now() - started, offerer };
}

async function agentDesk(): Promise<{ ms: number; offerer: VoiceOfferer; callId: string }> {
  freshSession();
  const started = performance.now();
  const { callId } = await voice.start('bench', {});
  const offerer = await createVoiceOfferer('bench-agentdesk');
  offerer.accept((await voice.offer(callId, offerer.offer)).sdp);
  await within(offerer.opened, openMs, 'AgentDesk: oai-events did not open');
  return { ms: performance.now() - started, offerer, callId };
}

const hangUp = async (offerer: VoiceOfferer, callId?: string) => {
  offerer.close();
  answerer.close();
  if (callId !== undefined) await voice.end(callId, 1);
};

try {
  // Warm-up: the first peer of a process pays libdatachannel's start and the first certificate.
  await hangUp((await floor()).offerer);
  const warm = await agentDesk();
  await hangUp(warm.offerer, warm.callId);

  const times = { floor: [] as number[], agentDesk: [] as number[] };
  for (let run = 0; run < runs; run++) {
    // Alternate the order so neither side always runs on a warmer machine.
    for (const side of run % 2 === 0 ? (['floor', 'agentDesk'] as const) : (['agentDesk', 'floor'] as const)) {
      if (side === 'floor') {
        const { ms, offerer } = await floor();
        times.floor.push(ms);
        await hangUp(offerer);
      } else {
        const { ms, offerer, callId } = await agentDesk();
        times.agentDesk.push(ms);
        await hangUp(offerer, callId);
      }
    }
  }
  process.stdout.write(`Voice connect on loopback (offerer created → oai-events open), ${runs} runs each\n`);
  printMedianP95('floor: two node-datachannel peers, SDP handed over in-process', times.floor, 62);
  printMedianP95('AgentDesk: VoiceService.start → postSdpOffer → answer applied', times.agentDesk, 62);
  const ratio = percentile(times.agentDesk, 50) / percentile(times.floor, 50);
  process.stdout.write(`  AgentDesk / floor (medians)${' '.repeat(35)} ${ratio.toFixed(2)}×   (min ${Math.min(...times.floor).toFixed(1)} / ${Math.min(...times.agentDesk).toFixed(1)} ms)\n\n`);

  // Function calls on one connection.
  const { offerer, callId } = await agentDesk();
  // session.created proves the provider's side of the channel is open too (it may open a moment later).
  await within(offerer.firstMessage, openMs, 'no session.created');
  const call = answerer.calls.at(-1)!;
  const arrivals = new Map<string, (at: number) => void>();
  answerer.onClientMessage = (text) => {
    const at = performance.now();
    const message = JSON.parse(text) as { type?: string; item?: { call_id?: string }; echo?: string };
    const key = message.type === 'conversation.item.create' ? message.item?.call_id : message.type === 'bench.echo' ? message.echo : undefined;
    if (key !== undefined) arrivals.get(key)?.(at);
  };
  const sendEvent = (event: unknown): void => {
    const checked = allowedClientEvent(event);
    if (!checked.ok) throw new Error(`the client would not send this: ${checked.reason}`);
    offerer.send(JSON.stringify(checked.event));
  };
  offerer.onMessage = (text) => {
    if (text.startsWith('{"type":"bench.echo"')) return void offerer.send(text); // the transport alone
    const parsed = parseRealtimeMessage(text);
    if (parsed.kind !== 'event' || parsed.event.type !== 'response.function_call_arguments.done') return;
    const { call_id: providerCallId, name, arguments: args } = parsed.event;
    void voice.tool(callId, { providerCallId, name, arguments: args }).then((result) => {
      if (result.outcome === 'duplicate') return;
      sendEvent(functionCallOutput(providerCallId, result.output));
      sendEvent(responseCreate);
    });
  };
  const roundTrip = (key: string, event: Record<string, unknown>): Promise<number> =>
    within(
      new Promise<number>((resolve) => {
        const started = performance.now();
        arrivals.set(key, (at) => {
          arrivals.delete(key);
          resolve(at - started);
        });
        answerer.send(call, event);
      }),
      openMs,
      `no answer to ${key}`,
    );
  const rows: { whole: number; tool: number; echo: number }[] = [];
  for (let i = 0; i < calls + 3; i++) {
    const echo = await roundTrip(`echo_${i}`, { type: 'bench.echo', echo: `echo_${i}` });
    const whole = await roundTrip(`call_bench_${i}`, { type: 'response.function_call_arguments.done', call_id: `call_bench_${i}`, name: 'search_records', arguments: '{"q":"Acme"}' });
    if (i >= 3) rows.push({ whole, tool: client.lastToolMs, echo }); // three warm-up calls
  }
  await hangUp(offerer, callId);
  process.stdout.write(`Provider function call → function_call_output at the provider, ${rows.length} calls (main side, no renderer)\n`);
  printMedianP95('function_call_arguments.done → function_call_output', rows.map((row) => row.whole), 62);
  printMedianP95('  voiceTool round trip (POST to the loopback Talkie server)', rows.map((row) => row.tool), 62);
  printMedianP95('  oai-events echo (provider → client → provider, no work)', rows.map((row) => row.echo), 62);
  printMedianP95("  the client's own: whole − voiceTool − echo", rows.map((row) => row.whole - row.tool - row.echo), 62);
  process.stdout.write('  (the renderer\'s IPC hop to main and its voice state machine are not included: they run only in Chromium)\n');
} finally {
  answerer.close();
  await fixture.close();
  ndc.cleanup();
}
