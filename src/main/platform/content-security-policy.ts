/**
 * The app page's Content Security Policy, sent as a response header by both hosts (Electron's
 * app:// protocol handler and the web shell). No inline or remote script, no eval, no frames,
 * no plugins; network access only to the page's own origin (the web shell's IPC WebSocket).
 * Images and media may come from blob:/data: (processed photo previews) and mediastream: (camera).
 *
 * `'wasm-unsafe-eval'` lets the page compile WebAssembly (onnxruntime-web, for the voice activity
 * detector's model): it allows no JavaScript eval (`eval`, `new Function`, string timers stay blocked;
 * that would be `'unsafe-eval'`, never here). The WebAssembly it compiles is fetched like any script:
 * only from the app's own origin (connect-src and script-src 'self': `vad/` beside the page). CSP cannot
 * give it to one chunk only (it is per document, and the detector runs in the page's own thread), so the
 * whole page has it; see README "Security review: WebAssembly in the page". Workers, were any started,
 * come only from the app's own files (worker-src 'self', stated rather than left to script-src).
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "frame-src 'none'",
].join('; ');

/** Headers sent with every file of the app page. */
export const pageSecurityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': contentSecurityPolicy,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(self), microphone=(self), geolocation=(), usb=(), serial=(), hid=()',
};
