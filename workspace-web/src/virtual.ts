// The arithmetic of the virtualized conversation: measured heights by item key (an estimate until measured),
// offsets by prefix sums, the range of items to draw for a scroll position, and the scroll position that keeps the
// first visible item where it was when items are added above it or re-measured (no jumps while text streams in or
// when an older page is prepended).

export class HeightCache {
  private heights = new Map<string, number>();
  private offsets: number[] = [0];
  private keys: string[] = [];
  private dirty = true;

  constructor(private estimate = 96) {}

  private index: Map<string, number> | null = null;

  setKeys(keys: string[]) {
    if (keys === this.keys) return; // the same list (a re-render): offsets and the index stay valid
    this.keys = keys;
    this.index = null;
    this.dirty = true;
  }

  /** Returns true when the height changed. */
  set(key: string, h: number): boolean {
    const old = this.heights.get(key);
    if (old !== undefined && Math.abs(old - h) < 0.5) return false;
    this.heights.set(key, h);
    this.dirty = true;
    return true;
  }

  height(key: string) {
    return this.heights.get(key) ?? this.estimate;
  }

  private rebuild() {
    if (!this.dirty) return;
    const n = this.keys.length;
    const off = new Array<number>(n + 1);
    off[0] = 0;
    for (let i = 0; i < n; i++) off[i + 1] = off[i] + this.height(this.keys[i]);
    this.offsets = off;
    this.dirty = false;
  }

  /** Top of item i (i == length gives the total height). */
  offset(i: number) {
    this.rebuild();
    return this.offsets[Math.max(0, Math.min(i, this.keys.length))];
  }

  total() {
    return this.offset(this.keys.length);
  }

  indexOf(key: string) {
    if (!this.index) {
      this.index = new Map();
      for (let i = 0; i < this.keys.length; i++) this.index.set(this.keys[i], i);
    }
    return this.index.get(key) ?? -1;
  }

  /** The item at vertical position y (binary search). */
  indexAt(y: number) {
    this.rebuild();
    const off = this.offsets;
    let lo = 0;
    let hi = this.keys.length - 1;
    if (hi < 0) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (off[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Items to draw for a viewport, with `overscan` pixels above and below. [start, end) */
  range(scrollTop: number, viewport: number, overscan = 600): [number, number] {
    const n = this.keys.length;
    if (n === 0) return [0, 0];
    const start = this.indexAt(Math.max(0, scrollTop - overscan));
    const end = Math.min(n, this.indexAt(scrollTop + viewport + overscan) + 1);
    return [start, end];
  }
}

export interface Anchor { key: string; delta: number }

/** What to keep in place: the first item whose bottom is below the top of the viewport, and how far it is from it. */
export function captureAnchor(cache: HeightCache, keys: string[], scrollTop: number): Anchor | null {
  if (keys.length === 0) return null;
  const i = cache.indexAt(scrollTop);
  return { key: keys[i], delta: scrollTop - cache.offset(i) };
}

/** The scroll position that puts the anchor back where it was (after cache.setKeys / set). */
export function restoreAnchor(cache: HeightCache, anchor: Anchor | null, fallback: number): number {
  if (!anchor) return fallback;
  const i = cache.indexOf(anchor.key);
  if (i < 0) return fallback;
  return cache.offset(i) + anchor.delta;
}

/** Whether a scroll position counts as "at the bottom" (then new content keeps the view pinned to the end). */
export function atBottom(scrollTop: number, viewport: number, total: number, slack = 48) {
  return total - (scrollTop + viewport) <= slack;
}

/**
 * The drawn range [start, end) moved along with its items when the list changed from `before` to `after` (an older
 * page prepended, a live item appended): the same rows stay drawn, so a page merge re-uses their DOM instead of
 * drawing the rows that now sit at the old indexes (new, unmeasured ones) and then the right ones again.
 */
export function shiftRange(range: [number, number], before: string[], after: string[], indexOf: (key: string) => number): [number, number] {
  const [start, end] = range;
  if (start >= before.length) return [Math.min(start, after.length), Math.min(end, after.length)];
  const moved = indexOf(before[start]);
  if (moved < 0) return [Math.min(start, after.length), Math.min(end, after.length)];
  const d = moved - start;
  return [moved, Math.min(after.length, end + d)];
}
