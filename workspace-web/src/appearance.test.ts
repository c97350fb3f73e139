import { describe, expect, it } from 'vitest';
import { DEFAULT_APPEARANCE, parseAppearance } from './appearance';

describe('the stored appearance', () => {
  it('keeps known values and falls back to the default for anything else', () => {
    expect(parseAppearance(null)).toEqual(DEFAULT_APPEARANCE);
    expect(parseAppearance('not json')).toEqual(DEFAULT_APPEARANCE);
    expect(parseAppearance('[]')).toEqual(DEFAULT_APPEARANCE);
    expect(parseAppearance('{"theme":"dark","textSize":"large","density":"compact"}'))
      .toEqual({ theme: 'dark', textSize: 'large', density: 'compact' });
    expect(parseAppearance('{"theme":"purple","textSize":"large","density":7}'))
      .toEqual({ theme: 'system', textSize: 'large', density: 'comfortable' });
  });
});
