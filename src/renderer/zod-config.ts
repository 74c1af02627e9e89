import { z } from 'zod';

// The page's CSP forbids eval. Zod probes for it with `new Function` (caught, but Chromium still
// reports a CSP violation) and compiles fast paths with it; jitless turns both off.
// Imported first by main.tsx, before any schema parses.
z.config({ jitless: true });
