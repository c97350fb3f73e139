// The /ws connection. It opens with a one-shot stream ticket (POST /api/auth/stream-ticket; the ticket goes in the
// URL, never a reusable credential), pings every 20 s (proxies drop idle sockets at 60-100 s), reconnects with
// backoff and at once when the page becomes visible or the network returns (a phone that slept), and then
// resubscribes every followed run from the last seq its listener applied: nothing is lost, nothing repeated.
import { api, isSignedOut } from './api';
import type { Frame } from './thread';

export type SocketState = 'connecting' | 'open' | 'reconnecting' | 'closed';

interface Follow {
  runId?: string;
  sessionId?: string;
  afterSeq: () => number;
}

type FrameListener = (f: Frame) => void;

export class ChatSocket {
  private ws: WebSocket | null = null;
  private follows = new Map<string, Follow>();
  private frameListeners = new Set<FrameListener>();
  private stateListeners = new Set<(s: SocketState) => void>();
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ping: ReturnType<typeof setInterval> | null = null;
  private disposed = false;
  private connecting = false;
  state: SocketState = 'closed';

  constructor() {
    document.addEventListener('visibilitychange', this.wake);
    window.addEventListener('online', this.wake);
    window.addEventListener('pageshow', this.wake);
  }

  private wake = () => {
    if (document.visibilityState === 'visible' && !this.disposed && this.state !== 'open' && !this.connecting) {
      this.retry = 0;
      this.connect();
    }
  };

  onFrame(fn: FrameListener) {
    this.frameListeners.add(fn);
    return () => this.frameListeners.delete(fn);
  }

  onState(fn: (s: SocketState) => void) {
    this.stateListeners.add(fn);
    return () => this.stateListeners.delete(fn);
  }

  private setState(s: SocketState) {
    this.state = s;
    this.stateListeners.forEach((fn) => fn(s));
  }

  async connect() {
    if (this.disposed || this.connecting || this.state === 'open') return;
    if (isSignedOut()) return;
    this.connecting = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.setState(this.retry === 0 ? 'connecting' : 'reconnecting');
    let ticket: string;
    try {
      ticket = (await api<{ ticket: string }>('/api/auth/stream-ticket', { method: 'POST', body: {} })).ticket;
    } catch (e) {
      this.connecting = false;
      this.scheduleReconnect();
      return;
    }
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/ws?streamTicket=${encodeURIComponent(ticket)}`);
    this.ws = ws;
    ws.onopen = () => {
      this.connecting = false;
      this.retry = 0;
      this.setState('open');
      for (const f of this.follows.values()) this.sendSubscribe(f);
      if (this.ping) clearInterval(this.ping);
      this.ping = setInterval(() => this.send({ type: 'ping' }), 20_000);
    };
    ws.onmessage = (m) => {
      let f: Frame;
      try {
        f = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (f.type === 'subscribed' && f.runId && f.sessionId && this.follows.has('s:' + f.sessionId)) {
        // a follow by session learns its run: from now on it is resumed by run id
        const fl = this.follows.get('s:' + f.sessionId)!;
        this.follows.delete('s:' + f.sessionId);
        this.follows.set('r:' + f.runId, { runId: f.runId, afterSeq: fl.afterSeq });
      }
      this.frameListeners.forEach((fn) => fn(f));
    };
    ws.onclose = () => {
      this.connecting = false;
      if (this.ping) clearInterval(this.ping);
      this.ping = null;
      if (this.ws === ws) this.ws = null;
      if (!this.disposed) this.scheduleReconnect();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  private scheduleReconnect() {
    if (this.disposed || isSignedOut()) {
      this.setState('closed');
      return;
    }
    this.setState('reconnecting');
    const delay = Math.min(10_000, 400 * 2 ** this.retry) * (0.75 + Math.random() * 0.5);
    this.retry++;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Sends when open; returns false when the socket is not open (the caller keeps the message). */
  send(msg: object): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Follows a run from after the seq the listener has applied; kept across reconnects. */
  followRun(runId: string, afterSeq: () => number) {
    const f = { runId, afterSeq };
    this.follows.set('r:' + runId, f);
    this.sendSubscribe(f);
  }

  /** Follows a session's newest run (its run id is learnt from `subscribed`). */
  followSession(sessionId: string, afterSeq: () => number) {
    const f = { sessionId, afterSeq };
    this.follows.set('s:' + sessionId, f);
    this.sendSubscribe(f);
  }

  /** Registers a run the server subscribed this socket to (a turn's run), so a reconnect resumes it. */
  adoptRun(runId: string, afterSeq: () => number) {
    this.follows.set('r:' + runId, { runId, afterSeq });
  }

  /** Stops following these runs (and the session's follow, if it has not learnt its run yet). */
  unfollow(runIds: Iterable<string>, sessionId?: string | null) {
    for (const r of runIds) {
      if (this.follows.delete('r:' + r)) this.send({ type: 'unsubscribe', runId: r });
    }
    if (sessionId && this.follows.delete('s:' + sessionId)) this.send({ type: 'unsubscribe', sessionId });
  }

  private sendSubscribe(f: Follow) {
    const afterSeq = f.afterSeq();
    this.send(f.runId ? { type: 'subscribe', runId: f.runId, afterSeq } : { type: 'subscribe', sessionId: f.sessionId, afterSeq });
  }

  /** Drops the connection (tests and "reconnect now"); it reconnects on its own. */
  drop() {
    this.ws?.close();
  }

  dispose() {
    this.disposed = true;
    document.removeEventListener('visibilitychange', this.wake);
    window.removeEventListener('online', this.wake);
    window.removeEventListener('pageshow', this.wake);
    if (this.timer) clearTimeout(this.timer);
    if (this.ping) clearInterval(this.ping);
    this.ws?.close();
    this.setState('closed');
  }
}

let shared: ChatSocket | null = null;

/** One socket per page. */
export function chatSocket(): ChatSocket {
  if (!shared) {
    shared = new ChatSocket();
    shared.connect();
  }
  return shared;
}

export function closeChatSocket() {
  shared?.dispose();
  shared = null;
}
