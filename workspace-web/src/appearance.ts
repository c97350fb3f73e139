// Appearance: theme (system, light, dark), text size and density. Kept per browser in localStorage
// (`aw.appearance`), not per account: a phone and a laptop of the same person often want a different size and
// density, and the sign-in page follows it too. Applied at once (attributes on <html> that styles.css reads), before
// the first render and on every change, in every open tab of the app (the `storage` event).

export type Theme = 'system' | 'light' | 'dark';
export type TextSize = 'small' | 'normal' | 'large';
export type Density = 'comfortable' | 'compact';
export interface Appearance { theme: Theme; textSize: TextSize; density: Density }

export const DEFAULT_APPEARANCE: Appearance = { theme: 'system', textSize: 'normal', density: 'comfortable' };
export const THEMES: Theme[] = ['system', 'light', 'dark'];
export const TEXT_SIZES: TextSize[] = ['small', 'normal', 'large'];
export const DENSITIES: Density[] = ['comfortable', 'compact'];
/** The base text size in px for each choice (styles.css sizes text in rem). */
export const TEXT_PX: Record<TextSize, number> = { small: 13, normal: 15, large: 17 };

const KEY = 'aw.appearance';

/** Reads what was stored; each unknown or missing value falls back to its default. */
export function parseAppearance(raw: string | null): Appearance {
  let v: any = null;
  try {
    v = raw ? JSON.parse(raw) : null;
  } catch {
    v = null;
  }
  const pick = <T extends string>(x: unknown, allowed: T[], d: T): T => (allowed.includes(x as T) ? (x as T) : d);
  return {
    theme: pick(v?.theme, THEMES, DEFAULT_APPEARANCE.theme),
    textSize: pick(v?.textSize, TEXT_SIZES, DEFAULT_APPEARANCE.textSize),
    density: pick(v?.density, DENSITIES, DEFAULT_APPEARANCE.density),
  };
}

export function loadAppearance(): Appearance {
  try {
    return parseAppearance(localStorage.getItem(KEY));
  } catch {
    return DEFAULT_APPEARANCE;
  }
}

let current: Appearance = DEFAULT_APPEARANCE;
const listeners = new Set<(a: Appearance) => void>();

export function appearance(): Appearance {
  return current;
}

/** Calls `f` on every change (the terminal follows the text size); returns the unsubscribe. */
export function onAppearance(f: (a: Appearance) => void): () => void {
  listeners.add(f);
  return () => listeners.delete(f);
}

/** Sets the attributes styles.css reads: data-theme (absent for system), data-text, data-density. */
export function applyAppearance(a: Appearance) {
  current = a;
  const root = document.documentElement;
  if (a.theme === 'system') delete root.dataset.theme;
  else root.dataset.theme = a.theme;
  root.dataset.text = a.textSize;
  root.dataset.density = a.density;
  for (const f of listeners) f(a);
}

/** Stores and applies a change. */
export function setAppearance(change: Partial<Appearance>) {
  const next = { ...current, ...change };
  try {
    localStorage.setItem(KEY, JSON.stringify(next));
  } catch {
    /* storage unavailable: applies to this page only */
  }
  applyAppearance(next);
}

/** Applies the stored choice now, and follows changes made in other tabs. */
export function installAppearance() {
  applyAppearance(loadAppearance());
  window.addEventListener('storage', (e) => {
    if (e.key === KEY) applyAppearance(parseAppearance(e.newValue));
  });
}
