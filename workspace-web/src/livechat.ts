// The live part of one conversation, kept outside the view that shows it: its runs' frames, the turns sent and not
// yet acknowledged, the "sending" lock, the notice. It listens to the socket from the moment it is created until it
// is disposed, whether or not a view is mounted.
//
// Why outside the view: a new chat learns its session id from a `session-created` frame and then moves to the
// session's address (/projects/P/sessions/ID), which mounts a new Conversation view. Between the old view's unmount
// and the new one's effects (a frame later) the socket keeps delivering the run's frames; a listener owned by a view
// dropped them, so a turn that finished in that moment never showed "Turn finished" (#20). Here the chat is handed to
// the view of its session (claimChat) and has applied every frame in the meantime.
import type { SocketState } from './socket';
import { LiveThread, type Frame } from './thread';

/** What the chat needs of the /ws connection (ChatSocket). */
export interface ChatChannel {
  state: SocketState;
  onFrame(fn: (f: Frame) => void): () => void;
  onState(fn: (s: SocketState) => void): () => void;
  send(msg: object): boolean;
  adoptRun(runId: string, afterSeq: () => number): void;
  followSession(sessionId: string, afterSeq: () => number): void;
  unfollow(runIds: Iterable<string>, sessionId?: string | null): void;
}

export interface ChatHooks {
  /** The chat's session now exists (a new chat): the list of sessions changed, and the view moves to its address. */
  sessionCreated?: (chat: LiveChat, sessionId: string) => void;
  /** A run of this chat finished. */
  runFinished?: (chat: LiveChat) => void;
}

/** Tools the user chose "always allow" for, by session (this tab only). */
const alwaysAllow = new Map<string, Set<string>>();

/** Chats that got their session id and wait for the view of that session to take them over. */
const handoffs = new Map<string, LiveChat>();

export class LiveChat {
  readonly live = new LiveThread();
  /** Runs shown live in this chat. */
  readonly mine = new Set<string>();
  sessionId: string | null;
  provider: string;
  notice = '';
  /** A turn was sent and its run has not finished (one tap sends once). */
  sending = false;
  /** Bumped on every change; views re-render on it. */
  version = 0;
  disposed = false;
  private pending = new Set<string>(); // clientRequestIds sent and not yet acknowledged by `subscribed`
  private listeners = new Set<() => void>();
  private views = 0;
  private offs: (() => void)[];
  private lingering: ReturnType<typeof setTimeout> | null = null;

  constructor(private channel: ChatChannel, readonly project: string, opts: { sessionId?: string; provider: string }, private hooks: ChatHooks = {}) {
    this.sessionId = opts.sessionId ?? null;
    this.provider = opts.provider;
    this.offs = [
      channel.onFrame((f) => this.onFrame(f)),
      channel.onState((s) => this.onState(s)),
    ];
    // an existing session: its newest run is shown live while it runs (its frames from after what was applied)
    if (this.sessionId) channel.followSession(this.sessionId, () => this.newestSeq());
  }

  /** Calls fn on every change; returns the unsubscribe. */
  subscribe(fn: () => void) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed() {
    this.version++;
    this.listeners.forEach((fn) => fn());
  }

  private newestSeq() {
    const runs = [...this.live.runs.values()];
    return runs.length ? runs[runs.length - 1].lastSeq : 0;
  }

  private onState(s: SocketState) {
    if (s === 'reconnecting' && this.pending.size > 0) {
      // the socket closed before the server acknowledged the turn: it may or may not have started; never resend
      this.pending.clear();
      this.sending = false;
      this.notice = 'The connection dropped while sending; if no answer appears, send the message again.';
      this.changed();
    }
  }

  /** Applies one /ws frame; public for the unit tests, which feed the server's frames in order. */
  onFrame(f: Frame) {
    if (this.disposed) return;
    const L = this.live;
    if (f.type === 'subscribed' && f.clientRequestId && this.pending.has(f.clientRequestId) && f.runId) {
      this.pending.delete(f.clientRequestId);
      this.mine.add(f.runId);
      const runId = f.runId;
      this.channel.adoptRun(runId, () => L.lastSeq(runId));
    }
    if (f.type === 'subscribed' && f.runId && !this.mine.has(f.runId) && this.sessionId && f.sessionId === this.sessionId) {
      // the session's newest run: shown live only while it runs (a finished one is in the history already)
      if (f.status === 'running' || f.status === 'queued' || f.status === 'pending') {
        this.mine.add(f.runId);
      } else {
        this.channel.unfollow([f.runId]);
        return;
      }
    }
    if (f.type === 'error') {
      if (f.clientRequestId && this.pending.has(f.clientRequestId)) {
        this.pending.delete(f.clientRequestId);
        this.notice = `The message was not sent: ${f.error?.message ?? f.error?.code}`;
        this.sending = false;
        this.changed();
      } else if (f.error?.code === 'PERMISSION_REQUEST_NOT_FOUND' && this.views > 0) {
        this.notice = 'That permission request is no longer open.';
        this.changed();
      }
      return;
    }
    if (!f.runId || !this.mine.has(f.runId)) return;
    const itemsChanged = L.apply(f);
    if (f.type === 'session-created' && f.sessionId && !this.sessionId) {
      this.sessionId = f.sessionId;
      handoffs.set(f.sessionId, this);
      this.changed();
      this.hooks.sessionCreated?.(this, f.sessionId);
      return;
    }
    if (f.type === 'complete') {
      this.sending = false;
      this.hooks.runFinished?.(this);
    }
    if (f.type === 'permission-request' && f.requestId && this.sessionId && alwaysAllow.get(this.sessionId)?.has(f.toolName ?? '')) {
      this.answer(f.requestId, 'allow');
      return;
    }
    if (itemsChanged || f.type === 'complete') this.changed();
  }

  /** Sends a turn; false when it was not sent (a turn already in flight, nothing to send, not connected). */
  send(text: string, opts: { model?: string; permissionMode?: string } = {}): boolean {
    if (this.sending) return false; // one tap sends once
    const msg = text.trim();
    if (!msg) return false;
    const id = 'c' + Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
    const turn: Record<string, unknown> = { type: 'turn', provider: this.provider, message: msg, clientRequestId: id, projectName: this.project };
    if (this.sessionId) {
      turn.sessionId = this.sessionId;
    } else {
      if (opts.model?.trim()) turn.model = opts.model.trim();
      if (opts.permissionMode) turn.permissionMode = opts.permissionMode;
    }
    if (!this.channel.send(turn)) {
      this.notice = 'Not connected to the server yet; try again in a moment.';
      this.changed();
      return false;
    }
    this.sending = true;
    this.pending.add(id);
    this.live.addLocalUser(msg, 'local:' + id);
    this.notice = '';
    this.changed();
    return true;
  }

  answer(requestId: string, decision: 'allow' | 'deny', always?: { toolName: string }) {
    if (always && this.sessionId) {
      if (!alwaysAllow.has(this.sessionId)) alwaysAllow.set(this.sessionId, new Set());
      alwaysAllow.get(this.sessionId)!.add(always.toolName);
    }
    if (this.channel.send({ type: 'permission-response', requestId, decision })) {
      this.live.permissions.delete(requestId);
    } else {
      this.notice = 'Not connected; answer again once reconnected.';
    }
    this.changed();
  }

  abort() {
    for (const r of this.live.activeRuns()) if (this.mine.has(r)) this.channel.send({ type: 'abort', runId: r });
  }

  running() {
    return this.live.activeRuns().some((r) => this.mine.has(r));
  }

  setNotice(text: string) {
    this.notice = text;
    this.changed();
  }

  /** A view shows this chat. */
  attach() {
    this.views++;
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
  }

  /**
   * A view stopped showing it. Without a view the chat is disposed, unless it waits for the view of its new session
   * (mounted in the same render as this one's unmount); if that view never comes, it is disposed a little later.
   */
  detach() {
    this.views = Math.max(0, this.views - 1);
    if (this.views > 0 || this.disposed) return;
    if (this.sessionId && handoffs.get(this.sessionId) === this) {
      // unclaimed after the navigation (another route won): nobody will show it
      this.lingering = setTimeout(() => {
        if (this.views === 0 && handoffs.get(this.sessionId!) === this) {
          handoffs.delete(this.sessionId!);
          this.dispose();
        }
      }, 10_000);
      return;
    }
    this.dispose();
  }

  /** Stops listening and unsubscribes this chat's runs (the runs go on on the server). */
  dispose() {
    if (this.disposed) return;
    this.disposed = true;
    if (this.lingering) clearTimeout(this.lingering);
    this.offs.forEach((off) => off());
    this.listeners.clear();
    if (this.sessionId && handoffs.get(this.sessionId) === this) handoffs.delete(this.sessionId);
    this.channel.unfollow(this.mine, this.sessionId);
  }
}

/**
 * The chat a view of session `sessionId` shows, attached to that view (which calls detach() when it unmounts): the
 * live chat that created this session in this tab (with every frame of its turn applied, even those that came while
 * no view was mounted), or a new one that follows the session. Attached at once, in the view's first render, so the
 * handover holds whichever of the old view's unmount and the new view's mount comes first.
 */
export function claimChat(channel: ChatChannel, project: string, sessionId: string | undefined, provider: string, hooks: ChatHooks = {}): LiveChat {
  let chat: LiveChat | undefined;
  if (sessionId) {
    const handed = handoffs.get(sessionId);
    if (handed && !handed.disposed && handed.project === project) {
      handoffs.delete(sessionId);
      chat = handed;
    }
  }
  chat ??= new LiveChat(channel, project, { sessionId, provider }, hooks);
  chat.attach();
  return chat;
}

/** Whether a chat waits for the view of this session (tests). */
export function awaitingView(sessionId: string) {
  return handoffs.has(sessionId);
}
