/**
 * The few globals that every runtime AgentDesk targets provides (Node ≥ 20, Chromium, Electron's
 * sandboxed preload). src/shared is compiled without the DOM library and without Node's types, so
 * only what is declared here is usable there: anything else fails the typecheck.
 */
declare class URL {
  constructor(input: string, base?: string | URL);
  hash: string;
  host: string;
  hostname: string;
  href: string;
  readonly origin: string;
  password: string;
  pathname: string;
  port: string;
  protocol: string;
  search: string;
  username: string;
  toString(): string;
  static canParse(input: string, base?: string): boolean;
}

declare function setTimeout(handler: () => void, timeoutMs?: number): unknown;
declare function clearTimeout(handle: unknown): void;

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean });
  decode(input?: Uint8Array): string;
}
