/**
 * The app page's Content Security Policy, sent as a response header by both hosts (Electron's
 * app:// protocol handler and the web shell). No inline or remote script, no eval, no frames,
 * no plugins; network access only to the page's own origin (the web shell's IPC WebSocket).
 * Images and media may come from blob:/data: (processed photo previews) and mediastream: (camera).
 * `'wasm-unsafe-eval'` lets the page compile WebAssembly (onnxruntime-web, for the voice activity
 * detector's model, served from the app's own files): it allows no JavaScript eval.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob: mediastream:",
  "font-src 'self'",
  "connect-src 'self'",
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
