// Small helpers shared by the settings pages: loading a resource, showing the error envelope's message, following
// an SSE stream, links inside the app.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { navigate } from '../router';

/** Loads `path` once (and again on `reload()`); `error` is the server's envelope message. */
export function useResource<T>(path: string | null) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState('');
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!path) return;
    let live = true;
    api<T>(path).then((d) => { if (live) { setData(d); setError(''); } }, (e) => { if (live) setError((e as Error).message); });
    return () => { live = false; };
  }, [path, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload, setData };
}

/** Runs an action, keeping a busy flag and the error's message for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const run = useCallback(async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError('');
    try {
      return await fn();
    } catch (e) {
      setError((e as Error).message);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}

export function ErrorText({ message }: { message: string }) {
  return message ? <p class="error" role="alert">{message}</p> : null;
}

export function Link({ href, children, class: cls }: { href: string; children: ComponentChildren; class?: string }) {
  return <a href={href} class={cls} onClick={(e) => { e.preventDefault(); navigate(href); }}>{children}</a>;
}

export interface SseHandlers {
  [event: string]: (data: any, id: string) => void;
}

/**
 * Follows an SSE route with the session cookie (same-origin EventSource). `onEnd(finished, events)` is called once:
 * `finished` when a `done` or `error` event arrived (the stream then ends), otherwise the stream closed and could not
 * be reopened (`events` says how many arrived before). Not called for `close()` or when the page goes away.
 * Returns a closer.
 */
export function followSse(url: string, handlers: SseHandlers, onEnd: (finished: boolean, events: number) => void): () => void {
  const es = new EventSource(url, { withCredentials: true });
  let ended = false;
  let count = 0;
  const leaving = () => { ended = true; };
  window.addEventListener('pagehide', leaving);
  window.addEventListener('beforeunload', leaving);
  const end = (finished: boolean) => {
    if (ended) return;
    ended = true;
    window.removeEventListener('pagehide', leaving);
    window.removeEventListener('beforeunload', leaving);
    es.close();
    onEnd(finished, count);
  };
  for (const name of Object.keys(handlers)) {
    es.addEventListener(name, (ev) => {
      // EventSource reports its own connection failures as plain `error` events too: only frames carry data
      if (!(ev instanceof MessageEvent)) return;
      const me = ev as MessageEvent;
      let data: any = null;
      try {
        data = me.data ? JSON.parse(me.data) : null;
      } catch {
        data = me.data;
      }
      count++;
      handlers[name](data, me.lastEventId);
      if (name === 'done' || name === 'error') end(true);
    });
  }
  es.onerror = () => {
    // the browser reconnects by itself (with Last-Event-ID); a closed stream is final
    if (es.readyState === EventSource.CLOSED) end(false);
  };
  return () => {
    ended = true;
    window.removeEventListener('pagehide', leaving);
    window.removeEventListener('beforeunload', leaving);
    es.close();
  };
}

/** Re-renders every `ms` while mounted (for "next run in …" and live lists). */
export function useTicker(ms: number, on = true) {
  const [, setN] = useState(0);
  const ref = useRef(0);
  useEffect(() => {
    if (!on) return;
    const t = setInterval(() => setN(++ref.current), ms);
    return () => clearInterval(t);
  }, [ms, on]);
}

export function when(iso: string | null | undefined) {
  if (!iso) return '—';
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toLocaleString();
}

export function duration(from?: string | null, to?: string | null) {
  if (!from) return '';
  const a = Date.parse(from);
  const b = to ? Date.parse(to) : Date.now();
  if (Number.isNaN(a) || Number.isNaN(b)) return '';
  const s = Math.max(0, Math.round((b - a) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
