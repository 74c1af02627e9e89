import { defaultOAuthClientId } from '../auth/talkie-oauth';
import type { Logger } from '../platform/logger';
import type { NoticeSink } from '../store/notices';
import { startAgentCallDemoServer } from './agentcall/agentcall-demo-server';
import { startAguiDemoServer } from './agui/agui-demo-server';
import { startTalkieDemoServer } from './talkie-demo-server';
import type { DemoVoiceOptions } from './voice/voice-sessions';

export interface RunningDemo {
  baseUrl: string;
  /** The development token (printed by `agentdesk demo`; used directly by the in-app demo). */
  token: string;
  /** The demo Authorization Server's issuer, named in the manifest's auth.oauth. */
  authIssuer: string;
  /** The demo agent's AgentCall side (agentcall/agentcall-demo-server.ts): its base URL and A2A Agent Card. */
  agentCallBaseUrl: string;
  agentCallCardUrl: string;
  /** The same AgentCall agent over agentcall-webrtc-0.1 (agent-owned voice). */
  agentCallWebrtcCardUrl: string;
  /** The demo agent's plain AG-UI side (agui/agui-demo-server.ts): the POST + SSE endpoint, no token. */
  aguiUrl: string;
  close(): Promise<void>;
}

/**
 * The complete built-in demo: the Talkie demo agent and, beside it, its OAuth Authorization Server
 * (oidc-provider, loaded only here), so browser sign-in works against the demo exactly as against
 * a production server. The static development token keeps working too. Beside them, the same demo
 * agent's AgentCall side (an A2A Agent Card and an AG-UI WebSocket) on its own free port, and its
 * plain AG-UI side (POST + SSE, interrupts with resume) on another; with `persistPath`, the key that
 * signs its interrupt ids is kept beside it (`<persistPath>.agui-key`) so open interrupts survive a restart.
 */
export async function startDemo(
  options: { port?: number; persistPath?: string; log?: Logger; clientId?: string; notices?: NoticeSink; voice?: DemoVoiceOptions } = {},
): Promise<RunningDemo> {
  const { startDemoAuthorizationServer } = await import('./authorization-server');
  const authorizationServer = await startDemoAuthorizationServer({
    clientId: options.clientId ?? defaultOAuthClientId,
    ...(options.log ? { log: options.log } : {}),
  });
  try {
    const talkie = await startTalkieDemoServer({
      ...(options.port === undefined ? {} : { port: options.port }),
      ...(options.persistPath === undefined ? {} : { persistPath: options.persistPath }),
      ...(options.log ? { log: options.log } : {}),
      ...(options.notices ? { notices: options.notices } : {}),
      ...(options.voice ? { voice: options.voice } : {}),
      oauthIssuer: authorizationServer.issuer,
      verifyToken: (token) => authorizationServer.verifyAccessToken(token),
    });
    let agentCall: Awaited<ReturnType<typeof startAgentCallDemoServer>>;
    try {
      agentCall = await startAgentCallDemoServer(options.log ? { log: options.log } : {});
    } catch (error) {
      await talkie.close();
      throw error;
    }
    let agui: Awaited<ReturnType<typeof startAguiDemoServer>>;
    try {
      agui = await startAguiDemoServer({
        ...(options.log ? { log: options.log } : {}),
        ...(options.persistPath === undefined ? {} : { secretPath: `${options.persistPath}.agui-key` }),
        ...(options.notices ? { notices: options.notices } : {}),
      });
    } catch (error) {
      await agentCall.close();
      await talkie.close();
      throw error;
    }
    return {
      baseUrl: talkie.baseUrl,
      token: talkie.token,
      authIssuer: authorizationServer.issuer,
      agentCallBaseUrl: agentCall.baseUrl,
      agentCallCardUrl: agentCall.cardUrl,
      agentCallWebrtcCardUrl: agentCall.webrtcCardUrl,
      aguiUrl: agui.url,
      close: async () => {
        await agui.close();
        await agentCall.close();
        await talkie.close();
        await authorizationServer.close();
      },
    };
  } catch (error) {
    await authorizationServer.close();
    throw error;
  }
}
