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
 *    (default 50) calls on one connection: the provider sends `response.output_item.done` (a completed `function_call` item)
 *    on oai-events; the client side parses it with the app's parseRealtimeMessage, calls
 *    VoiceService.tool (POST voiceTool), builds the output with functionCallOutput, passes it
 *    through allowedClientEvent and sends it, then response.create. Printed: the whole, the voiceTool
 *    round trip inside it, an oai-events echo (provider → client → provider, no work), and the
 *    client's own time = whole − voiceTool − echo. Without the renderer: in the app the renderer owns
 *    the RTCPeerConnection and reaches VoiceService over IPC, so its IPC hop and its voice state
 *    machine are not in this figure (they run only in Chromium).
 *
 * 3. AgentCall WebRTC (agentcall-webrtc-0.1) connect against the built-in demo's WebRTC agent, over
 *    VOICE_RUNS runs of each, alternating, after one warm-up of each:
 *    - floor: two node-datachannel peers on loopback, the offer handed straight to a bare answerer (one
 *      sendrecv Opus track, takes any channel) and its answer straight back (no HTTP);
 *    - AgentDesk: callAgentCallAgent, what `agentdesk chat` and `conformance` do: the offerer
 *      (createAgentCallOfferer: Opus sendrecv + agentcall.events / agentcall-agui-dc-0.1) → postAgentCallOffer
 *      (the guarded POST, the answer's profile check) to the demo's /agui/webrtc, which answers with its
 *      own peer → answer applied → agentcall.events open (label and subprotocol checked).
 *    Both from offerer created to channel open. Goal: AgentDesk ≤ 1.2× the floor (medians). Printed with
 *    median, worst, the number of samples and the load average before and after.
 *
 * 4. Client-owned voice's synthesis in main, VOICE_RUNS runs of each, alternating, after one warm-up:
 *    SpeechService.synthesize of one agent sentence by espeak-ng (a child process per text) and by an
 *    imported Piper voice in its speech engine process: the synthetic voice of test/fixtures/speech with
 *    Debian's espeak-ng-data, whose "inference" is a tone tiled per phoneme, so its figure is the
 *    engine path alone (espeak-ng's phonemes, the process's round trip, the samples over its channel, the
 *    WAV); a real voice's inference comes on top. Also the voice's import (its ~490 files hashed and
 *    copied, one load) and, after a restart, the time from SpeechModels.open to the first answer (every
 *    file hashed again, the process started, the voice loaded: begun in the background at open), here
 *    with the process run from source through tsx (the built app starts out/main/speech-engine.js).
 *
 *   npm run bench:voice             (VOICE_RUNS=20 VOICE_CALLS=100 to change the load;
 *                                    VOICE_ONLY=talkie, agentcall or speech for one part)
 */
import * as ndc from 'node-datachannel';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { callAgentCallAgent, createAgentCallOfferer, createVoiceOfferer, within, type AgentCallOfferer, type VoiceOfferer } from '../src/main/cli/voice-peer';
import { startAgentCallDemoServer } from '../src/main/demo/agentcall/agentcall-demo-server';
import { gatheredDescription } from '../src/main/demo/voice/realtime-provider';
import { identifyAgent } from '../src/main/agents/identify-agent';
import { keepUntilExit } from '../src/main/platform/keep-until-exit';
import { SpeechModels, walkVoiceData } from '../src/main/speech/speech-models';
import { SpeechService } from '../src/main/speech/speech-service';
import { Notices } from '../src/main/store/notices';
import { piperVoiceFolder } from '../test/support/speech/model-folders';
import { createLogger } from '../src/main/platform/logger';
import { TalkieClient } from '../src/main/talkie/talkie-client';
import { VoiceService } from '../src/main/talkie/voice-service';
import { validateManifest } from '../src/shared/talkie/manifest';
import { allowedClientEvent, functionCallOutput, parseRealtimeMessage, responseCreate } from '../src/shared/talkie/voice/realtime-events';
import { ndcAnswerer, startVoiceFixture } from '../test/support/talkie-voice-fixture';
import { percentile, printMedianP95 } from './stats';

const runs = Number(process.env.VOICE_RUNS ?? 10);
const only = process.env.VOICE_ONLY;
if (only !== undefined && only !== 'talkie' && only !== 'agentcall' && only !== 'speech') throw new Error('VOICE_ONLY is talkie, agentcall or speech');
const calls = Number(process.env.VOICE_CALLS ?? 50);
const openMs = 10_000;

const answerer = ndcAnswerer();
const fixture = await startVoiceFixture({ answer: (offer) => answerer.answer(offer) });
const manifest = validateManifest(
  await (await fetch(`${fixture.talkie.origin}/.well-known/talkie.json`)).json(),
  `${fixture.talkie.origin}/.well-known/talkie.json`,
);
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
  if (only === undefined || only === 'talkie') await talkie();
  if (only === undefined || only === 'agentcall') await agentCall();
  if (only === undefined || only === 'speech') await speech();
} finally {
  answerer.close();
  await fixture.close();
  ndc.cleanup();
}

async function talkie(): Promise<void> {
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
  process.stdout.write(
    `  AgentDesk / floor (medians)${' '.repeat(35)} ${ratio.toFixed(2)}×   (min ${Math.min(...times.floor).toFixed(1)} / ${Math.min(...times.agentDesk).toFixed(1)} ms)\n\n`,
  );

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
    // A tool runs for a function_call item the provider finished as completed (as the app's controller does).
    if (parsed.kind !== 'event' || parsed.event.type !== 'response.output_item.done' || parsed.event.item.status !== 'completed') return;
    const { call_id: providerCallId, name, arguments: args } = parsed.event.item;
    if (providerCallId === undefined || name === undefined || args === undefined) return;
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
    const item = {
      id: `item_bench_${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: `call_bench_${i}`,
      name: 'search_records',
      arguments: '{"q":"Acme"}',
    };
    const whole = await roundTrip(`call_bench_${i}`, { type: 'response.output_item.done', response_id: `resp_bench_${i}`, output_index: 0, item });
    if (i >= 3) rows.push({ whole, tool: client.lastToolMs, echo }); // three warm-up calls
  }
  await hangUp(offerer, callId);
  process.stdout.write(`Provider function call → function_call_output at the provider, ${rows.length} calls (main side, no renderer)\n`);
  printMedianP95(
    'output_item.done (function_call) → function_call_output',
    rows.map((row) => row.whole),
    62,
  );
  printMedianP95(
    '  voiceTool round trip (POST to the loopback Talkie server)',
    rows.map((row) => row.tool),
    62,
  );
  printMedianP95(
    '  oai-events echo (provider → client → provider, no work)',
    rows.map((row) => row.echo),
    62,
  );
  printMedianP95(
    "  the client's own: whole − voiceTool − echo",
    rows.map((row) => row.whole - row.tool - row.echo),
    62,
  );
  process.stdout.write("  (the renderer's IPC hop to main and its voice state machine are not included: they run only in Chromium)\n\n");
}

/** A bare answerer for the floor: one sendrecv Opus track, any data channel kept (strong refs). */
function bareAnswer(offer: string): { answer: Promise<string>; close(): void } {
  const pc = new ndc.PeerConnection('bench-bare-answerer', { iceServers: [], bindAddress: '127.0.0.1' });
  const audio = new ndc.Audio('0', 'SendRecv');
  audio.addOpusCodec(111, 'minptime=10;useinbandfec=1');
  audio.addSSRC(0x0b3c_0001, 'bench', 'bench-stream', 'bench-audio');
  const kept: unknown[] = [pc, pc.addTrack(audio)];
  pc.onDataChannel((channel) => void kept.push(channel));
  return {
    answer: gatheredDescription(pc, () => pc.setRemoteDescription(offer, 'offer')),
    close() {
      keepUntilExit(...kept);
      for (const item of kept.slice().reverse()) {
        try {
          (item as { close(): void }).close();
        } catch {
          // already closed
        }
      }
    },
  };
}

async function agentCall(): Promise<void> {
  const demo = await startAgentCallDemoServer();
  const loadBefore = loadavg();
  try {
    const agent = await identifyAgent(demo.webrtcCardUrl, { allowLocalHttp: true });
    if (agent.protocol !== 'agentcall' || agent.card.transport !== 'webrtc')
      throw new Error("the demo's WebRTC card was not read as an agentcall-webrtc-0.1 card");
    const card = agent.card;
    const log = createLogger({ level: 'silent' });
    let sessions = 0;
    const floor = async (): Promise<number> => {
      const started = performance.now();
      const offerer: AgentCallOfferer = await createAgentCallOfferer({ name: 'bench-floor' });
      const peer = bareAnswer(offerer.offer);
      try {
        offerer.accept(await peer.answer);
        await within(offerer.opened, openMs, 'floor: the channel did not open');
        return performance.now() - started;
      } finally {
        offerer.close();
        peer.close();
      }
    };
    const agentDesk = async (): Promise<number> => {
      const started = performance.now();
      const call = await callAgentCallAgent({
        card,
        policy: { allowLocalHttp: true },
        token: undefined,
        sessionId: `bench-${(sessions += 1)}`,
        timeoutMs: openMs,
        log,
        name: 'bench-agentcall',
      });
      const ms = performance.now() - started;
      call.close();
      return ms;
    };
    await floor();
    await agentDesk();
    const times = { floor: [] as number[], agentDesk: [] as number[] };
    for (let run = 0; run < runs; run++) {
      for (const side of run % 2 === 0 ? (['floor', 'agentDesk'] as const) : (['agentDesk', 'floor'] as const)) {
        times[side].push(side === 'floor' ? await floor() : await agentDesk());
      }
    }
    const loadAfter = loadavg();
    const line = (label: string, values: number[]) =>
      process.stdout.write(
        `  ${label.padEnd(62)} median ${percentile(values, 50).toFixed(2).padStart(8)} ms   worst ${Math.max(...values)
          .toFixed(2)
          .padStart(8)} ms   (${values.length} samples)\n`,
      );
    process.stdout.write(`AgentCall WebRTC connect on loopback (offerer created → agentcall.events open), ${runs} runs each\n`);
    line('floor: two node-datachannel peers, SDP handed over in-process', times.floor);
    line('AgentDesk: postAgentCallOffer to the demo → answer → open', times.agentDesk);
    const ratio = percentile(times.agentDesk, 50) / percentile(times.floor, 50);
    process.stdout.write(`  AgentDesk / floor (medians) ${ratio.toFixed(2)}×, goal ≤ 1.2×: ${ratio <= 1.2 ? 'met' : 'NOT met'}\n`);
    process.stdout.write(
      `  load average (1, 5, 15 min): before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}\n`,
    );
  } finally {
    await demo.close();
  }
}

async function speech(): Promise<void> {
  const loadBefore = loadavg();
  const log = createLogger({ level: 'silent' });
  const temp = await mkdtemp(join(tmpdir(), 'agentdesk-bench-speech-'));
  try {
    const userDataDir = join(temp, 'user-data');
    let models = await SpeechModels.open({ userDataDir, log, notices: new Notices() });
    const folder = await piperVoiceFolder(temp);
    const files = (await walkVoiceData(folder)).length + 2;
    let started = performance.now();
    await models.importModel(folder, () => undefined, 'voice');
    const importMs = performance.now() - started;
    const sentence = 'The green valve on the left is the one to close first, then the red one beside it.';
    const byVoice = new SpeechService({ voice: () => models.voice(), log });
    const byEspeak = new SpeechService({ log });
    await byVoice.synthesize(sentence, 'en');
    await byEspeak.synthesize(sentence, 'en');
    const times = { espeak: [] as number[], voice: [] as number[] };
    for (let run = 0; run < runs; run++) {
      for (const side of run % 2 === 0 ? (['espeak', 'voice'] as const) : (['voice', 'espeak'] as const)) {
        started = performance.now();
        await (side === 'voice' ? byVoice : byEspeak).synthesize(sentence, 'en');
        times[side].push(performance.now() - started);
      }
    }
    models.dispose();
    started = performance.now();
    models = await SpeechModels.open({ userDataDir, log, notices: new Notices() });
    await byVoice.synthesize(sentence, 'en');
    const restartMs = performance.now() - started;
    models.dispose();
    const loadAfter = loadavg();
    const line = (label: string, values: number[]) =>
      process.stdout.write(
        `  ${label.padEnd(62)} median ${percentile(values, 50).toFixed(2).padStart(8)} ms   worst ${Math.max(...values)
          .toFixed(2)
          .padStart(8)} ms   (${values.length} samples)\n`,
      );
    process.stdout.write(`Client-owned voice: speech.synthesize in main of one ${sentence.length}-character sentence, ${runs} runs each\n`);
    line('espeak-ng (a child process per text)', times.espeak);
    line('imported Piper voice (synthetic: the engine process path)', times.voice);
    process.stdout.write(`  the voice's import (${files} files hashed and copied, one load): ${importMs.toFixed(0)} ms\n`);
    process.stdout.write(
      `  a restart: open → first answer (${files} files hashed again, process started through tsx, voice loaded): ${restartMs.toFixed(0)} ms\n`,
    );
    process.stdout.write(
      `  load average (1, 5, 15 min): before ${loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${loadAfter.map((x) => x.toFixed(2)).join(' ')}\n`,
    );
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
