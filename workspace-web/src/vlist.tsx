import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { atBottom, captureAnchor, HeightCache, restoreAnchor, shiftRange, type Anchor } from './virtual';

interface Props<T> {
  items: T[];
  keyOf: (t: T) => string;
  render: (t: T) => ComponentChildren;
  /** Called when the view nears the top (load an older page). */
  onNearTop?: () => void;
  /** Scroll so that this item is at the top (a search hit), once per change of the value. */
  focusKey?: string | null;
  footer?: ComponentChildren;
  label: string;
}

/**
 * A virtualized, bottom-anchored list: only the rows near the viewport are in the DOM; rows are measured as they are
 * drawn (ResizeObserver); while the user is at the bottom new content keeps the view at the end, otherwise the
 * first visible row stays exactly where it is (rows growing below it, older pages prepended above it, or rows
 * re-measured never move what the user is reading). The browser's own scroll anchoring is off (CSS).
 */
export function VirtualList<T>({ items, keyOf, render, onNearTop, focusKey, footer, label }: Props<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const cache = useMemo(() => new HeightCache(90), []);
  const keys = useMemo(() => items.map(keyOf), [items]);
  cache.setKeys(keys);
  const stick = useRef(true);
  const anchor = useRef<Anchor | null>(null);
  const [, setTick] = useState(0);
  // the drawn rows [start, end): a ref, so that a change of the list can move it in the same render (shiftRange)
  const rangeRef = useRef<[number, number]>([Math.max(0, keys.length - 30), keys.length]);
  const drawnKeys = useRef(keys);
  if (drawnKeys.current !== keys) {
    rangeRef.current = shiftRange(rangeRef.current, drawnKeys.current, keys, (k) => cache.indexOf(k));
    drawnKeys.current = keys;
  }
  const range = rangeRef.current;
  const setRange = (r: [number, number]) => {
    rangeRef.current = r;
    setTick((t) => t + 1);
  };
  const frame = useRef(0);
  const programmatic = useRef<number | null>(null); // the scrollTop this list set last, until its scroll event

  const observer: ResizeObserver | null = useMemo(
    () =>
      typeof ResizeObserver === 'undefined'
        ? null
        : new ResizeObserver((entries) => {
            let changed = false;
            for (const e of entries) {
              const el = e.target as HTMLElement;
              const k = el.dataset.key;
              // a row taken out of the DOM reports 0x0: keep its last real height
              if (!el.isConnected) {
                observer?.unobserve(el);
                continue;
              }
              const h = el.getBoundingClientRect().height;
              if (k && h > 0) changed = cache.set(k, h) || changed;
            }
            if (changed) schedule();
          }),
    [],
  );
  useEffect(() => () => observer?.disconnect(), []);

  function schedule() {
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      setTick((t) => t + 1);
    });
  }

  function computeRange() {
    const el = scroller.current;
    if (!el) return;
    const r = cache.range(el.scrollTop, el.clientHeight);
    const cur = rangeRef.current;
    if (r[0] !== cur[0] || r[1] !== cur[1]) setRange(r);
  }

  function onScroll() {
    const el = scroller.current!;
    const mine = programmatic.current !== null && Math.abs(el.scrollTop - programmatic.current) < 2;
    programmatic.current = null;
    if (!mine) {
      stick.current = atBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
      anchor.current = stick.current ? null : captureAnchor(cache, keys, el.scrollTop);
    }
    computeRange();
    if (onNearTop && el.scrollTop < 600) onNearTop();
  }

  useEffect(() => {
    if (!focusKey) return;
    const i = cache.indexOf(focusKey);
    if (i < 0) return;
    stick.current = false;
    anchor.current = { key: focusKey, delta: -24 };
    const el = scroller.current;
    if (el) setRange(cache.range(cache.offset(i), el.clientHeight));
    schedule();
  }, [focusKey, cache.indexOf(focusKey ?? '') >= 0]);

  // after every render: measure the drawn rows, then put the scroll position where it belongs
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const rows = el.querySelectorAll<HTMLElement>('[data-key]');
    rows.forEach((r) => {
      const h = r.getBoundingClientRect().height;
      if (h > 0) cache.set(r.dataset.key!, h);
      observer?.observe(r);
    });
    const total = cache.total();
    const want = stick.current ? Math.max(0, total + footerHeight(el) - el.clientHeight) : restoreAnchor(cache, anchor.current, el.scrollTop);
    if (Math.abs(el.scrollTop - want) > 1) {
      el.scrollTop = want;
      programmatic.current = el.scrollTop; // as the browser clamped it
    }
    computeRange();
  });

  const [start, end] = [Math.min(range[0], keys.length), Math.min(Math.max(range[1], Math.min(keys.length, range[0] + 1)), keys.length)];
  const top = cache.offset(start);
  const bottom = cache.total() - cache.offset(end);

  return (
    <div class="vlist" ref={scroller} onScroll={onScroll} role="log" aria-label={label} aria-live="off" tabIndex={0}>
      <div style={{ height: `${top}px` }} aria-hidden="true" />
      {items.slice(start, end).map((it, i) => (
        <div class="vrow" data-key={keys[start + i]} key={keys[start + i]}>
          {render(it)}
        </div>
      ))}
      <div style={{ height: `${bottom}px` }} aria-hidden="true" />
      <div class="vfooter">{footer}</div>
    </div>
  );
}

function footerHeight(el: HTMLElement) {
  const f = el.querySelector<HTMLElement>('.vfooter');
  return f ? f.getBoundingClientRect().height : 0;
}
