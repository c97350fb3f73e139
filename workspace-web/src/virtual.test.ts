import { describe, expect, it } from 'vitest';
import { atBottom, captureAnchor, HeightCache, restoreAnchor, shiftRange } from './virtual';

const keys = (n: number, from = 0) => Array.from({ length: n }, (_, i) => 'k' + (i + from));

describe('HeightCache', () => {
  it('offsets follow measured heights and estimates', () => {
    const c = new HeightCache(100);
    c.setKeys(keys(5));
    expect(c.total()).toBe(500);
    c.set('k1', 40);
    expect(c.offset(2)).toBe(140);
    expect(c.total()).toBe(440);
    expect(c.indexAt(0)).toBe(0);
    expect(c.indexAt(139)).toBe(1);
    expect(c.indexAt(140)).toBe(2);
    expect(c.indexAt(10_000)).toBe(4);
  });

  it('draws only the rows near the viewport of a 5,000-row list', () => {
    const c = new HeightCache(50);
    c.setKeys(keys(5000));
    const [start, end] = c.range(100_000, 800, 200);
    expect(start).toBe(1996);
    expect(end).toBe(2021);
    expect(end - start).toBeLessThan(40);
  });

  it('a page prepended above keeps the first visible row in place', () => {
    const c = new HeightCache(100);
    c.setKeys(keys(50, 100));
    const scrollTop = 1234;
    const a = captureAnchor(c, keys(50, 100), scrollTop)!;
    expect(a.key).toBe('k112');
    c.setKeys([...keys(100, 0), ...keys(50, 100)]);
    const next = restoreAnchor(c, a, 0);
    expect(next - c.offset(c.indexOf('k112'))).toBe(a.delta);
    expect(next).toBe(10_000 + 1234);
  });

  it('rows growing below the anchor (streaming text) do not move it; rows re-measured above it are compensated', () => {
    const c = new HeightCache(100);
    const k = keys(30);
    c.setKeys(k);
    const a = captureAnchor(c, k, 1050)!; // k10, 50 px into it
    c.set('k29', 900); // the streaming message at the end grows
    expect(restoreAnchor(c, a, 0)).toBe(1050);
    c.set('k2', 300); // a row above is measured taller than estimated
    expect(restoreAnchor(c, a, 0)).toBe(1250);
  });

  it('knows when the view is at the bottom', () => {
    expect(atBottom(900, 100, 1000)).toBe(true);
    expect(atBottom(800, 100, 1000)).toBe(false);
  });

  it('the drawn range follows its rows when a page is prepended (no redraw of other rows)', () => {
    const before = keys(100, 200);
    const after = [...keys(200, 0), ...before];
    const c = new HeightCache(50);
    c.setKeys(after);
    expect(shiftRange([3, 14], before, after, (k) => c.indexOf(k))).toEqual([203, 214]);
    expect(after.slice(203, 214)).toEqual(before.slice(3, 14));
    // appended at the end: unchanged; a list that lost the row: clamped
    const appended = [...before, 'live1'];
    c.setKeys(appended);
    expect(shiftRange([90, 100], before, appended, (k) => c.indexOf(k))).toEqual([90, 100]);
    c.setKeys(keys(5));
    expect(shiftRange([50, 60], before, keys(5), (k) => c.indexOf(k))).toEqual([5, 5]);
  });
});
