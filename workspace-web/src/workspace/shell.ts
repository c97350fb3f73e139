// One terminal's connection to /shell (docs/shell.md). It opens with a one-shot stream ticket, starts a terminal in
// the project (or reattaches to one by id), and remembers the byte offset of the last output it applied: after a
// lost connection it reattaches from there, so the server replays exactly what was missed. Output at or below the
// remembered offset is never applied twice.
import { api } from '../api';

export type ShellState = 'connecting' | 'open' | 'detached' | 'reconnecting' | 'exited' | 'failed';

interface Frame {
  type: string; data?: string; offset?: number; sessionId?: string; exitCode?: number; truncated?: boolean;
  error?: { code: string; message: string };
}

export interface ShellEvents {
  output: (data: string) => void;
  state: (s: ShellState, detail?: string) => void;
}

export class ShellConnection {
  sessionId: string | null = null;
  /** Byte offset just after the last output applied. */
  offset = 0;
  state: ShellState = 'connecting';
  private ws: WebSocket | null = null;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ping: ReturnType<typeof setInterval> | null = null;

  /**
   * {@code resume}: the id of a terminal this tab had before a reload; the first connection reattaches to it from
   * offset 0, so the server replays what it still holds (the xterm is empty after a reload).
   */
  constructor(private project: string, private size: () => { cols: number; rows: number }, private on: ShellEvents,
    resume?: string) {
    if (resume) this.sessionId = resume;
  }

  private set(s: ShellState, detail?: string) {
    this.state = s;
    this.on.state(s, detail);
  }

  /** Opens (or reattaches). */
  async connect() {
    if (this.state === 'exited' || (this.ws && this.ws.readyState <= 1)) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.set(this.sessionId ? 'reconnecting' : 'connecting');
    let ticket: string;
    try {
      ticket = (await api<{ ticket: string }>('/api/auth/stream-ticket', { method: 'POST', body: {} })).ticket;
    } catch (e) {
      this.set('failed', (e as Error).message);
      this.schedule();
      return;
    }
    const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(`${proto}//${location.host}/shell?streamTicket=${encodeURIComponent(ticket)}`);
    this.ws = ws;
    ws.onopen = () => {
      const { cols, rows } = this.size();
      ws.send(JSON.stringify(this.sessionId
        ? { type: 'init', sessionId: this.sessionId, lastOffset: this.offset, cols, rows }
        : { type: 'init', projectName: this.project, cols, rows }));
      this.ping = setInterval(() => this.send({ type: 'ping' }), 20_000);
    };
    ws.onmessage = (m) => {
      let f: Frame;
      try {
        f = JSON.parse(String(m.data));
      } catch {
        return;
      }
      this.frame(f);
    };
    ws.onclose = (ev) => {
      if (this.ping) clearInterval(this.ping);
      this.ping = null;
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.state === 'exited' || this.state === 'detached') return;
      if (ev.code === 4401) {
        this.set('failed', 'The account was deleted.');
        return;
      }
      this.set('reconnecting');
      this.schedule();
    };
  }

  frame(f: Frame) {
    switch (f.type) {
      case 'ready':
        this.sessionId = f.sessionId ?? this.sessionId;
        this.retry = 0;
        this.set('open');
        break;
      case 'output':
        if (typeof f.offset === 'number') {
          if (f.offset <= this.offset) return; // already applied
          this.offset = f.offset;
        }
        this.on.output(f.data ?? '');
        break;
      case 'replay-start':
        if (f.truncated) this.on.output('\r\n\x1b[2m[older output was no longer kept]\x1b[0m\r\n');
        break;
      case 'exit':
        this.set('exited', `exit code ${f.exitCode}`);
        break;
      case 'error':
        if (f.error?.code === 'SHELL_NOT_FOUND' && this.sessionId) {
          // gone for good (reaped, or the server restarted): nothing to reattach to any more
          this.sessionId = null;
          this.stop();
          this.set('failed', 'The terminal ended while it was disconnected. Open a new one.');
        } else {
          this.set(this.state === 'open' ? 'open' : 'failed', f.error?.message ?? 'The terminal refused a message.');
          if (this.state === 'failed') this.stop();
        }
        break;
    }
  }

  private schedule() {
    if (this.timer || this.state === 'exited' || this.state === 'detached') return;
    const delay = Math.min(10_000, 400 * 2 ** this.retry++) * (0.75 + Math.random() * 0.5);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private stop() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const ws = this.ws;
    this.ws = null;
    ws?.close();
  }

  send(msg: object) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  input(data: string) {
    this.send({ type: 'input', data });
  }

  resize(cols: number, rows: number) {
    this.send({ type: 'resize', cols, rows });
  }

  /** Drops the connection; the terminal keeps running on the server (for 5 minutes) until reattached. */
  detach() {
    this.set('detached');
    this.stop();
  }

  /** Reattaches after a detach or a failure: what was missed is replayed. */
  reattach() {
    if (this.state === 'exited') return;
    this.stop();
    this.state = 'reconnecting';
    this.retry = 0;
    this.connect();
  }

  /** Ends the terminal on the server. */
  close() {
    this.send({ type: 'close' });
    this.set('exited', 'closed');
    setTimeout(() => this.stop(), 200);
  }

  /** A phone woke up or the network came back: reconnect at once. */
  wake() {
    if (this.state === 'reconnecting' || (this.state === 'failed' && this.sessionId)) {
      this.retry = 0;
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.connect();
    }
  }
}
