import { afterEach, describe, expect, it, vi } from 'vitest';
import { awaitingView, claimChat, type ChatChannel } from './livechat';
import type { SocketState } from './socket';
import type { Frame } from './thread';

/**
 * The /ws connection as the chat sees it, in memory: the test plays the server's frames in the order the server sends
 * them for a new codex chat (docs/live-channels.md) and reads what the chat sent and followed.
 */
class Channel implements ChatChannel {
  state: SocketState = 'open';
  sent: any[] = [];
  follows = new Map<string, () => number>();
  private frames = new Set<(f: Frame) => void>();
  private states = new Set<(s: SocketState) => void>();
  onFrame(fn: (f: Frame) => void) { this.frames.add(fn); return () => { this.frames.delete(fn); }; }
  onState(fn: (s: SocketState) => void) { this.states.add(fn); return () => { this.states.delete(fn); }; }
  send(msg: object) { this.sent.push(msg); return this.state === 'open'; }
  adoptRun(runId: string, afterSeq: () => number) { this.follows.set('r:' + runId, afterSeq); }
  followSession(sessionId: string, afterSeq: () => number) { this.follows.set('s:' + sessionId, afterSeq); }
  unfollow(runIds: Iterable<string>, sessionId?: string | null) {
    for (const r of runIds) if (this.follows.delete('r:' + r)) this.sent.push({ type: 'unsubscribe', runId: r });
    if (sessionId && this.follows.delete('s:' + sessionId)) this.sent.push({ type: 'unsubscribe', sessionId });
  }
  deliver(f: Frame) { this.frames.forEach((fn) => fn(f)); }
  listeners() { return this.frames.size; }
  setState(s: SocketState) { this.state = s; this.states.forEach((fn) => fn(s)); }
  turnId() { return this.sent.find((m) => m.type === 'turn').clientRequestId as string; }
}

const RUN = 'run_1';
const SESSION = 'thread_abc';
const ev = (seq: number, kind: string, data: unknown): Frame => ({ type: 'event', seq, runId: RUN, event: { kind, data, at: '2026-01-01T00:00:00Z' } });
const rest: Frame[] = [
  ev(2, 'text', { role: 'assistant', text: 'Done.' }),
  { type: 'complete', seq: 3, runId: RUN, status: 'completed' },
];

function startNewChat(ch: Channel) {
  const navigations: string[] = [];
  const chat = claimChat(ch, 'proj', undefined, 'codex', { sessionCreated: (_c, id) => navigations.push(id) });
  expect(chat.send('hello', { permissionMode: 'bypassPermissions' })).toBe(true);
  ch.deliver({ type: 'subscribed', seq: 0, runId: RUN, clientRequestId: ch.turnId(), status: 'running' });
  ch.deliver({ type: 'session-created', seq: 1, runId: RUN, sessionId: SESSION });
  return { chat, navigations };
}

afterEach(() => { vi.useRealTimers(); });

describe('LiveChat: a new chat moving to its session address keeps its live turn', () => {
  it('frames that come between the old view unmounting and the new one mounting are applied and shown', () => {
    const ch = new Channel();
    const { chat, navigations } = startNewChat(ch);
    expect(navigations).toEqual([SESSION]);
    expect(awaitingView(SESSION)).toBe(true);
    // the route change unmounts the new-chat view first (Preact unmounts before it mounts the new keyed child) ...
    chat.detach();
    // ... and the turn finishes before the session view has mounted
    rest.forEach((f) => ch.deliver(f));
    const view = claimChat(ch, 'proj', SESSION, 'codex');
    expect(view).toBe(chat);
    expect(view.live.items.map((i) => i.text)).toEqual(['hello', 'Done.', 'Turn finished']);
    expect(view.running()).toBe(false);
    expect(view.sending).toBe(false);
    // nothing was unsubscribed and the run is still followed for a reconnect
    expect(ch.sent.filter((m) => m.type === 'unsubscribe')).toEqual([]);
    expect(ch.follows.has('r:' + RUN)).toBe(true);
    expect(awaitingView(SESSION)).toBe(false);
  });

  it('the same when the session view mounts before the old one unmounts, and when the turn ends later', () => {
    const ch = new Channel();
    const { chat } = startNewChat(ch);
    const view = claimChat(ch, 'proj', SESSION, 'codex');
    chat.detach(); // the old view's cleanup: the chat has a view, so it stays
    expect(view.disposed).toBe(false);
    let redraws = 0;
    view.subscribe(() => redraws++);
    rest.forEach((f) => ch.deliver(f));
    expect(view.live.items.at(-1)?.text).toBe('Turn finished');
    expect(redraws).toBeGreaterThan(0);
    expect(ch.listeners()).toBe(1); // one chat listening, not two
  });

  it('a turn that finished before the navigation is shown finished too', () => {
    const ch = new Channel();
    const { chat } = startNewChat(ch);
    rest.forEach((f) => ch.deliver(f));
    chat.detach();
    const view = claimChat(ch, 'proj', SESSION, 'codex');
    expect(view.live.items.at(-1)?.text).toBe('Turn finished');
    expect(view.running()).toBe(false);
  });

  it('a chat whose session view never comes is disposed and unsubscribes its run', () => {
    vi.useFakeTimers();
    const ch = new Channel();
    const { chat } = startNewChat(ch);
    chat.detach();
    vi.advanceTimersByTime(10_001);
    expect(chat.disposed).toBe(true);
    expect(ch.listeners()).toBe(0);
    expect(ch.sent).toContainEqual({ type: 'unsubscribe', runId: RUN });
    // a later view of that session follows it afresh
    const view = claimChat(ch, 'proj', SESSION, 'codex');
    expect(view).not.toBe(chat);
    expect(ch.follows.has('s:' + SESSION)).toBe(true);
  });

  it('leaving a chat without a session disposes it at once', () => {
    const ch = new Channel();
    const chat = claimChat(ch, 'proj', undefined, 'codex');
    chat.send('hi');
    ch.deliver({ type: 'subscribed', seq: 0, runId: RUN, clientRequestId: ch.turnId(), status: 'running' });
    chat.detach();
    expect(chat.disposed).toBe(true);
    expect(ch.sent).toContainEqual({ type: 'unsubscribe', runId: RUN });
  });
});

describe('LiveChat: an open session', () => {
  it('shows the newest run live while it runs and lets go of a finished one', () => {
    const ch = new Channel();
    const chat = claimChat(ch, 'proj', 'sess_1', 'claude');
    expect(ch.follows.has('s:sess_1')).toBe(true);
    // the server answers with the session's newest run, already finished: it is in the history, not shown live
    ch.follows.set('r:run_old', () => 0); // the socket turned the session follow into this run's follow
    ch.deliver({ type: 'subscribed', seq: 0, runId: 'run_old', sessionId: 'sess_1', status: 'completed' });
    expect(ch.sent).toContainEqual({ type: 'unsubscribe', runId: 'run_old' });
    expect(chat.mine.size).toBe(0);
    // a run of this session that is running is shown
    ch.deliver({ type: 'subscribed', seq: 0, runId: 'run_new', sessionId: 'sess_1', status: 'running' });
    ch.deliver({ type: 'event', seq: 1, runId: 'run_new', event: { kind: 'text', data: { role: 'assistant', text: 'hi' } } });
    expect(chat.live.items.map((i) => i.text)).toEqual(['hi']);
    expect(chat.running()).toBe(true);
  });

  it('one tap sends once; a dropped socket before the acknowledgement frees the composer with a notice', () => {
    const ch = new Channel();
    const chat = claimChat(ch, 'proj', 'sess_1', 'claude');
    expect(chat.send('one')).toBe(true);
    expect(chat.send('one')).toBe(false);
    expect(ch.sent.filter((m) => m.type === 'turn')).toHaveLength(1);
    ch.setState('reconnecting');
    expect(chat.sending).toBe(false);
    expect(chat.notice).toMatch(/connection dropped/);
  });
});
