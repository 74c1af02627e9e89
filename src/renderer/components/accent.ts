import { useEffect, useRef, type RefObject } from 'react';

const hexColour = /^#[0-9a-f]{6}$/i;

function channel(hex: string): number {
  const value = Number.parseInt(hex, 16) / 255;
  return value <= 0.04045 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
}

/** WCAG relative luminance of a #rrggbb colour. */
export function luminance(colour: string): number {
  return 0.2126 * channel(colour.slice(1, 3)) + 0.7152 * channel(colour.slice(3, 5)) + 0.0722 * channel(colour.slice(5, 7));
}

/**
 * The server's accent and a readable text colour on it (black or white, whichever contrasts more),
 * or undefined when the value is not exactly #rrggbb.
 */
export function accentColours(value: string | undefined): { accent: string; onAccent: '#000000' | '#ffffff' } | undefined {
  if (value === undefined || !hexColour.test(value)) return undefined;
  const l = luminance(value);
  const withWhite = 1.05 / (l + 0.05);
  const withBlack = (l + 0.05) / 0.05;
  return { accent: value.toLowerCase(), onAccent: withBlack >= withWhite ? '#000000' : '#ffffff' };
}

/**
 * Sets `--accent` / `--on-accent` on the returned element through the CSSOM (the page's CSP
 * forbids inline style attributes, not style properties set from script).
 */
export function useAccent<T extends HTMLElement>(value: string | undefined): RefObject<T | null> {
  const ref = useRef<T>(null);
  useEffect(() => {
    const element = ref.current;
    if (!element) return undefined;
    const colours = accentColours(value);
    if (!colours) return undefined;
    element.style.setProperty('--accent', colours.accent);
    element.style.setProperty('--on-accent', colours.onAccent);
    return () => {
      element.style.removeProperty('--accent');
      element.style.removeProperty('--on-accent');
    };
  }, [value]);
  return ref;
}
