import { describe, expect, it } from 'vitest';
import { historyItems, LiveThread, type Frame } from './thread';

const ev = (seq: number, kind: string, data: unknown): Frame => ({ type: 'event', seq, runId: 'run_1', event: { kind, data, at: '2026-01-01T00:00:00Z' } });

describe('LiveThread', () => {
  it('applies each seq once: a replay after a reconnect adds nothing', () => {
    const t = new LiveThread();
    const frames = [ev(1, 'status', { status: 'running' }), ev(2, 'text-delta', { text: 'Hel' }), ev(3, 'text-delta', { text: 'lo' })];
    frames.forEach((f) => t.apply(f));
    // the socket dropped; the server replays from afterSeq = 1 (a client that had missed seq 2..3 would ask for them)
    expect(t.lastSeq('run_1')).toBe(3);
    frames.forEach((f) => t.apply(f));
    t.apply(ev(4, 'text-delta', { text: ' world' }));
    expect(t.items.filter((i) => i.kind === 'assistant').map((i) => i.text)).toEqual(['Hello world']);
  });

  it('the final text replaces the streamed preview; a tool result folds into its call', () => {
    const t = new LiveThread();
    t.apply(ev(1, 'text-delta', { text: 'Wri' }));
    t.apply(ev(2, 'text', { role: 'assistant', text: 'Writing the file.' }));
    t.apply(ev(3, 'tool-use', { callId: 'c1', toolName: 'Write', input: { file_path: '/p/a.txt', content: 'x' } }));
    t.apply(ev(4, 'tool-result', { callId: 'c1', output: 'ok', isError: false }));
    t.apply({ type: 'complete', seq: 5, runId: 'run_1', status: 'completed', usage: { input: 10, output: 2, cost: 0.001 } });
    expect(t.items.map((i) => i.kind)).toEqual(['assistant', 'tool', 'status']);
    expect(t.items[0].text).toBe('Writing the file.');
    expect(t.items[0].streaming).toBe(false);
    expect(t.items[1].output).toBe('ok');
    expect(t.activeRuns()).toEqual([]);
  });

  it('a pending permission request survives a resubscription and closes with its answer', () => {
    const t = new LiveThread();
    const notice: Frame = { type: 'permission-request', seq: 3, runId: 'run_1', requestId: 'perm_1', toolName: 'Write', input: {}, expiresAt: 'x' };
    t.apply(ev(3, 'permission-request', { requestId: 'perm_1' }));
    t.apply(notice);
    expect([...t.permissions.keys()]).toEqual(['perm_1']);
    t.apply(notice); // re-sent after the reconnect: still one
    expect(t.permissions.size).toBe(1);
    t.apply(ev(4, 'permission-response', { requestId: 'perm_1', decision: 'allow', reason: 'answered', toolName: 'Write' }));
    expect(t.permissions.size).toBe(0);
    t.apply(notice); // a late notice for an answered request is not shown again
    expect(t.permissions.size).toBe(0);
  });

  it('a failed turn says why', () => {
    const t = new LiveThread();
    t.apply({ type: 'complete', seq: 2, runId: 'run_1', status: 'failed', exitCode: 1, reason: 'provider not logged in' });
    expect(t.items[0].text).toContain('failed');
    expect(t.items[0].text).toContain('provider not logged in');
    expect(t.items[0].isError).toBe(true);
  });
});

describe('historyItems', () => {
  it('folds tool results into their calls', () => {
    const base = { text: '', toolName: null, toolCallId: null, toolInputJson: null, toolOutput: null, toolError: false, timestamp: null, usage: null };
    const items = historyItems([
      { ...base, id: '1', role: 'user', kind: 'text', text: 'hi' },
      { ...base, id: '2', role: 'assistant', kind: 'tool_call', toolName: 'Bash', toolCallId: 't1', toolInputJson: '{"command":"ls"}' },
      { ...base, id: '3', role: 'tool', kind: 'tool_result', toolCallId: 't1', toolOutput: 'a.txt' },
    ]);
    expect(items.map((i) => i.kind)).toEqual(['user', 'tool']);
    expect(items[1].input).toEqual({ command: 'ls' });
    expect(items[1].output).toBe('a.txt');
  });
});
