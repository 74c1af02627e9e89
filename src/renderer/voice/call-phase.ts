/** What a call is doing, as the call bar shows it (the dot's colour follows it) and the kiosk's idle reset hears it. */
export type CallPhase = 'connecting' | 'listening' | 'hearing' | 'thinking' | 'speaking';
