import { join } from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterEach, expect } from 'vitest';
import type { Io } from '../../../src/main/cli/output';
import { startAgentCallDemoServer, type AgentCallDemoServer } from '../../../src/main/demo/agentcall/agentcall-demo-server';

/**
 * What the `agentdesk chat` tests against the AgentCall demo share, over the WebSocket
 * (test/unit/cli/agentcall-cli.test.ts) and over WebRTC (test/unit/cli/agentcall-webrtc-chat.test.ts):
 * the captured output, the typed input, the chat options, the demo agent closed after each test, the
 * photo the agent asks for, and what the demo answers to the photo exchange on either transport.
 */

/** The CLI's output, kept line by line (stderr lines marked). */
export function captureIo(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { lines, out: (line) => void lines.push(line), err: (line) => void lines.push(`stderr: ${line}`) };
}

/** What the user types, one line each. */
export const chatInput = (...lines: string[]): Readable => Readable.from(lines.map((line) => `${line}\n`));

/** Chat options for tests: no NFC reader, and no SIGINT handler on the test process. */
export const quietChat = { nfc: false as const, handleSigint: false };

/**
 * Call once per test file: `demo()` starts the AgentCall demo agent on 127.0.0.1 (both its WebSocket and
 * WebRTC cards), `closeAfter` registers anything else; all of it is closed after each test.
 */
export function useChatDemo(): { demo(options?: { token?: string }): Promise<AgentCallDemoServer>; closeAfter(close: () => Promise<void>): void } {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return {
    demo: async (options = {}) => {
      const server = await startAgentCallDemoServer(options);
      closers.push(() => server.close());
      return server;
    },
    closeAfter: (close) => void closers.push(close),
  };
}

/** A 320×240 PNG in `dir`, for `/photo <file>`; returns its path. */
export async function objectPhoto(dir: string): Promise<string> {
  const file = join(dir, 'object.png');
  await sharp({ create: { width: 320, height: 240, channels: 3, background: { r: 200, g: 120, b: 40 } } })
    .png()
    .toFile(file);
  return file;
}

/**
 * The demo's side of `hello`, `take a photo`, `/photo <file>`, `/scan` with NFC off, as the chat prints it
 * (the same on both transports), after the lines that say what was connected.
 */
export const demoPhotoExchange: readonly unknown[] = [
  expect.stringMatching(/^agent: I'm the AgentDesk demo agent\. I understand "scan an object", "take a photo"/),
  '[request photo] Take a photo of the object: press Capture. (type /photo <file> to send a picture, or /decline)',
  'agent: Take a photo of the object: press Capture.',
  expect.stringMatching(/^\[sent photo 320×240, \d+ bytes, answering the request\]$/),
  '[request answered]',
  expect.stringMatching(/^agent: I received a 320×240 photo \([\d,]+ bytes\)\. I don't keep it\.$/),
  'Cannot scan: NFC is turned off for this chat.',
];
