import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { z } from 'zod';
import type { TalkieManifest, VoiceCapability } from '../../shared/talkie/manifest';
import { parseRealtimeMessage } from '../../shared/talkie/voice/realtime-events';
import { validateVoiceSession, type VoiceSession } from '../../shared/talkie/voice/voice-session';
import { NetError, type NetPolicy } from '../net/guarded-fetch';
import { createLogger } from '../platform/logger';
import { postSdpOffer, SdpError } from '../talkie/sdp-exchange';
import { describe, TalkieClient, TalkieError } from '../talkie/talkie-client';
import { VoiceService } from '../talkie/voice-service';
import { CheckFailed, expect, refusal, type CheckResult } from './checks';
import { createVoiceOfferer, opusProfile, within, type VoiceOfferer } from './voice-peer';

/**
 * `agentdesk conformance`: Talkie 1 §10 voice, for a test-mode server whose manifest offers voice.
 * Server checks, in the order a call makes them: the `POST voiceSessions` answer as the app judges
 * it (validateVoiceSession under the same --dev rule), a real WebRTC connection (a node-datachannel
 * offerer posts its offer with the client secret alone, through the app's postSdpOffer, to the
 * signalling URL; the answer must open `oai-events` and bring `session.created`), the secret used a
 * second time, one voiceTool call and its callId again (409), a transcript (201), usage reports.
 * Client checks: copies of the server's answer with the signalling URL changed (http without --dev;
 * a host the manifest does not list) go through validateVoiceSession and the app's VoiceService; the
 * URL points at a local decoy listener, which must see no connection at all.
 *
 * The secret is a credential: no printed line carries it (a server's message that quotes it is redacted).
 */
export const voiceCheckNames = [
  'voice session',
  'voice SDP exchange',
  'voice secret used twice',
  'voice tool',
  'voice tool callId reused → 409',
  'voice transcript',
  'voice usage',
  'client: http signalling refused without --dev',
  'client: unlisted signalling host refused',
] as const;
type VoiceCheckName = (typeof voiceCheckNames)[number];

export const voiceLimits = {
  /** Each wait of the WebRTC connection: the data channel opening, then its first event. */
  timeoutMs: 10_000,
  /** A client secret is short-lived (Talkie 1 §10.1): an expiresAt further away than this fails. */
  secretLifetimeSeconds: 2 * 3600,
} as const;

export interface VoiceCheckOptions {
  dev: boolean;
}

const toolAnswerSchema = z.looseObject({ ok: z.literal(true), output: z.string(), events: z.array(z.unknown()).optional() });
const usageAnswerSchema = z.looseObject({ remainingSeconds: z.number().finite() });

/** Runs every voice check against `client` (whose manifest offers voice), reporting each as it finishes. */
export async function voiceChecks(client: TalkieClient, options: VoiceCheckOptions, report: (result: CheckResult) => void): Promise<void> {
  const capability = client.manifest.voice;
  if (!capability) throw new Error('voiceChecks: the manifest offers no voice.');
  const { signalingHosts } = capability;
  const policy: NetPolicy = { allowLocalHttp: options.dev };
  const { timeoutMs } = voiceLimits;
  let secret: string | undefined;
  const redact = (text: string) => (secret ? text.split(secret).join('[client secret]') : text);
  const done = (result: CheckResult) => report({ ...result, detail: redact(result.detail) });
  const skip = (name: VoiceCheckName, detail: string) => done({ name, ok: true, skipped: true, detail });
  /** Runs one check; true when it passed (or warned). */
  const run = async (name: VoiceCheckName, check: () => Promise<string | Omit<CheckResult, 'name'>>): Promise<boolean> => {
    try {
      const outcome = await check();
      const result = typeof outcome === 'string' ? { name, ok: true, detail: outcome } : { name, ...outcome };
      done(result);
      return result.ok && !result.skipped;
    } catch (error) {
      done({ name, ok: false, detail: failure(error) });
      return false;
    }
  };

  let answer: unknown;
  let session: VoiceSession | undefined;
  await run('voice session', async () => {
    answer = await client.voiceSession({});
    const validation = validateVoiceSession(answer, signalingHosts, { development: options.dev });
    if (!validation.ok) {
      const problems = validation.problems.map((problem) => `${problem.code} at ${problem.path || '/'} (${problem.message})`).join('; ');
      throw new CheckFailed(`AgentDesk refuses this voice session${options.dev ? '' : ' (without --dev)'}: ${problems}`);
    }
    session = validation.session;
    secret = session.clientSecret;
    const expiresIn = Math.round((Date.parse(session.expiresAt) - Date.now()) / 1000);
    expect(expiresIn > 0, `expiresAt ${session.expiresAt} is not in the future (by this machine's clock)`);
    expect(
      expiresIn <= voiceLimits.secretLifetimeSeconds,
      `expiresAt is ${expiresIn} s away: the client secret is meant to be short-lived (§10.1), and this suite allows at most ${voiceLimits.secretLifetimeSeconds / 3600} h`,
    );
    expect(session.warnSeconds < session.maxSeconds, `warnSeconds (${session.warnSeconds}) is not below maxSeconds (${session.maxSeconds})`);
    const labels = Object.keys(session.labels).length;
    return (
      `${session.voiceSessionId} on thread ${session.threadId}: webrtc, openai-realtime/1, sdp-post to ${session.signalingUrl} (a listed host), ` +
      `a client secret that expires in ${expiresIn} s, at most ${session.maxSeconds} s with a warning ${session.warnSeconds} s before, ${labels} tool label${labels === 1 ? '' : 's'}`
    );
  });

  let call: VoiceOfferer | undefined;
  const hangUp = () => {
    call?.close();
    call = undefined;
  };
  try {
    if (!session) {
      for (const name of voiceCheckNames.slice(1)) skip(name, 'no voice session AgentDesk would use (see "voice session")');
      return;
    }
    const { voiceSessionId, signalingUrl, clientSecret, labels } = session;
    const host = new URL(signalingUrl).host;

    const connected = await run('voice SDP exchange', async () => {
      call = await createVoiceOfferer('agentdesk-conformance');
      const started = performance.now();
      const sdp = await postSdpOffer(signalingUrl, clientSecret, call.offer, policy);
      expect(/^m=audio /m.test(sdp), 'the SDP answer has no audio section (m=audio)');
      expect(/^a=rtpmap:\d+ opus\/48000/im.test(sdp), 'the SDP answer does not take Opus at 48 kHz');
      expect(/^m=application /m.test(sdp), 'the SDP answer has no data channel section (m=application)');
      try {
        call.accept(sdp);
      } catch (error) {
        throw new CheckFailed(`setRemoteDescription refused the SDP answer: ${failure(error)}`);
      }
      await within(call.opened, timeoutMs, `the oai-events data channel did not open within ${seconds(timeoutMs)} of the answer`);
      const first = parseRealtimeMessage(await within(call.firstMessage, timeoutMs, `no event came on oai-events within ${seconds(timeoutMs)} of it opening`));
      if (first.kind === 'invalid') throw new CheckFailed(`the provider's first event cannot be read: ${first.reason}`);
      expect(
        first.kind === 'event' && first.event.type === 'session.created',
        `the provider's first event is not session.created (${first.kind === 'ignored' ? first.reason : first.event.type})`,
      );
      return (
        `an offer (Opus 48 kHz mono sendrecv, ${opusProfile}; data channel oai-events) went to ${host} with the client secret as its only credential; ` +
        `the answer was accepted, oai-events opened and the first event was session.created (${Math.round(performance.now() - started)} ms)`
      );
    });

    if (!connected) skip('voice secret used twice', 'the first SDP exchange did not complete, so a second one would prove nothing');
    else
      await run('voice secret used twice', async () => {
        const second = await createVoiceOfferer('agentdesk-conformance-reuse');
        try {
          let sdp: string;
          try {
            sdp = await postSdpOffer(signalingUrl, clientSecret, second.offer, policy);
          } catch (error) {
            if (!(error instanceof SdpError)) throw error;
            if (error.code === 'network')
              throw new CheckFailed(`the second SDP POST failed on the network, so whether the secret still works is unknown: ${error.message}`);
            return `a second SDP POST with the same secret was refused (${error.code === 'secret_rejected' ? '401' : `${error.code}: ${error.message}`})`;
          }
          // Accepted: finish that call too, so hanging up below ends it on the provider's side.
          try {
            second.accept(sdp);
            await within(second.opened, timeoutMs, 'not opened');
          } catch {
            // only a courtesy to the provider
          }
          return {
            ok: true,
            warning: true,
            detail:
              `${host} accepted a second SDP POST with the same client secret and made a second call. §10.1 says the secret is short-lived, not single-use, ` +
              'so this is a warning rather than a failure; AgentDesk itself sends each secret once',
          };
        } finally {
          second.close();
        }
      });

    const tool = Object.keys(labels)[0];
    if (tool === undefined) {
      skip('voice tool', 'no tool to exercise: the voice session lists no tool labels');
      skip('voice tool callId reused → 409', 'no tool to exercise: the voice session lists no tool labels');
    } else {
      const callId = `call_conformance_${randomUUID()}`;
      let taken = false;
      await run('voice tool', async () => {
        const result = await client.voiceTool(voiceSessionId, tool, { callId, arguments: '{}' });
        taken = true;
        const parsed = toolAnswerSchema.safeParse(result);
        expect(parsed.success, `${tool} answered ${shape(result)}, not {"ok": true, "output": "…"}`);
        const events = parsed.data.events?.length ?? 0;
        return `${tool} with a fresh callId and arguments {} → ok, an output of ${parsed.data.output.length} characters${events > 0 ? ` and ${events} event${events === 1 ? '' : 's'}` : ''}`;
      });
      if (!taken) skip('voice tool callId reused → 409', 'the first tool call was not accepted');
      else
        await run('voice tool callId reused → 409', async () => {
          const again = await refusal(() => client.voiceTool(voiceSessionId, tool, { callId, arguments: '{}' }));
          expect(
            again?.status === 409,
            `the same callId again answered ${again ? `${again.status} ${again.code}` : 'with success'}, not 409 (§10.2: the server rejects a reused callId)`,
          );
          return `the same callId again → 409 ${again.code}`;
        });
    }

    await run('voice transcript', async () => {
      const status = await client.voiceTranscript(voiceSessionId, {
        role: 'user',
        text: `Talkie conformance ${randomUUID().slice(0, 8)}`,
        itemId: `item_conformance_${randomUUID()}`,
      });
      expect(status === 201, `a final user transcript answered ${status}, not 201`);
      return 'a final user transcript → 201';
    });

    await run('voice usage', async () => {
      const running = usageAnswerSchema.safeParse(await client.voiceUsage(voiceSessionId, { seconds: 1, final: false }));
      expect(running.success, '{"seconds": 1, "final": false} got no remainingSeconds number');
      hangUp();
      const final = usageAnswerSchema.safeParse(await client.voiceUsage(voiceSessionId, { seconds: 1, final: true }));
      expect(final.success, 'the final report {"seconds": 1, "final": true} got no remainingSeconds number');
      return `remainingSeconds ${running.data.remainingSeconds} after 1 s; after hanging up, the final report → remainingSeconds ${final.data.remainingSeconds}`;
    });

    await clientChecks(client.manifest, capability, answer, session, policy, run);
  } finally {
    // node-datachannel's threads are freed once, by the process's owner (main.ts, after the command):
    // another peer in this process (a demo's provider in a test) may still be open.
    hangUp();
  }
}

type Run = (name: VoiceCheckName, check: () => Promise<string | Omit<CheckResult, 'name'>>) => Promise<boolean>;

/**
 * The client refusing before anything is sent: AgentDesk's own rules, proved on copies of the
 * server's (valid) answer whose signalling URL points at a local decoy listener.
 */
async function clientChecks(
  manifest: TalkieManifest,
  capability: VoiceCapability,
  answer: unknown,
  session: VoiceSession,
  policy: NetPolicy,
  run: Run,
): Promise<void> {
  const { signalingHosts } = capability;
  const decoy = await listenDecoy();
  try {
    await run('client: http signalling refused without --dev', async () => {
      // The decoy is listed, so the scheme is all that is wrong; the app's production rule applies.
      const decoyHost = `127.0.0.1:${decoy.port}`;
      return refusedBeforeSending(`http://${decoyHost}/v1/realtime/calls`, [...signalingHosts, decoyHost], 'signaling_not_https', { allowLocalHttp: false });
    });
    await run('client: unlisted signalling host refused', async () => {
      const name = ['127.0.0.1', 'localhost', '[::1]'].find(
        (candidate) => !signalingHosts.includes(candidate) && !signalingHosts.includes(`${candidate}:${decoy.port}`),
      );
      if (name === undefined) return { ok: true, skipped: true, detail: 'the manifest lists every loopback name, so no unlisted host can point at the decoy' };
      return refusedBeforeSending(
        `${new URL(session.signalingUrl).protocol}//${name}:${decoy.port}/v1/realtime/calls`,
        signalingHosts,
        'signaling_host_not_listed',
        policy,
      );
    });
  } finally {
    await decoy.close();
  }

  async function refusedBeforeSending(url: string, hosts: string[], code: string, rules: NetPolicy): Promise<string> {
    const tampered = { ...(answer as Record<string, unknown>), signaling: { type: 'sdp-post', url } };
    const validation = validateVoiceSession(tampered, hosts, { development: rules.allowLocalHttp });
    expect(!validation.ok, `validateVoiceSession accepted the server's answer with the signalling URL ${url}`);
    const codes = validation.problems.map((problem) => problem.code);
    expect(codes.includes(code), `validateVoiceSession refused the copy with ${codes.join(', ')}, not ${code}`);
    // The app's path: VoiceService.start must refuse the copy, so no offer (and no secret) can follow.
    const voice = new VoiceService({
      talkie: {
        voiceClient: async () => ({ client: new ReplayedSession({ ...manifest, voice: { ...capability, signalingHosts: hosts } }, tampered), policy: rules }),
        voiceCall: (_agentId, request) => request(),
        // The refusal comes at start; nothing here reads or decides an action.
        action: () => Promise.reject(new Error('not used by this check')),
        decide: () => Promise.reject(new Error('not used by this check')),
      },
      log: createLogger({ level: 'silent' }),
    });
    let started = false;
    try {
      const { callId } = await voice.start('conformance', {});
      started = true;
      await voice.offer(callId, 'v=0\r\n');
    } catch {
      // refused, as it should be (or the offer failed after a start it should not have made)
    }
    expect(!started, `AgentDesk's VoiceService.start accepted the copy with ${url}`);
    expect(decoy.connections() === 0, `the decoy at ${url} saw ${decoy.connections()} connection(s)`);
    return `validateVoiceSession refused a copy of the server's answer with the signalling URL ${url} (${code}), so did VoiceService.start, and the decoy listening there saw no connection: the secret went nowhere`;
  }
}

/** A TalkieClient whose `POST voiceSessions` is answered from memory (nothing is requested). */
class ReplayedSession extends TalkieClient {
  constructor(
    manifest: TalkieManifest,
    private readonly answer: unknown,
  ) {
    super(manifest, { allowLocalHttp: false }, { get: async () => undefined, refresh: async () => undefined });
  }

  override voiceSession(): Promise<unknown> {
    return Promise.resolve(this.answer);
  }
}

/** A TCP listener on 127.0.0.1 that counts connections and closes each at once. */
async function listenDecoy(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    socket.on('error', () => undefined);
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function failure(error: unknown): string {
  if (error instanceof CheckFailed || error instanceof SdpError) return error.message;
  if (error instanceof TalkieError) return `HTTP ${error.status} ${error.code}: ${error.message}`;
  if (error instanceof NetError) return describe(error).message;
  return error instanceof Error ? error.message : String(error);
}

function shape(json: unknown): string {
  const text = JSON.stringify(json) ?? String(json);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

const seconds = (ms: number) => `${ms / 1000} s`;
