// The conversation as a list of display items, from two sources: pages of the session's history (REST) and the
// frames of live runs (/ws). Each run's frames are applied once: a frame whose seq is not above the last one applied
// for that run is ignored, so a resubscription after a reconnect (afterSeq = the last seq) or a replayed frame never
// duplicates an item, and a gap can be detected.
import type { SessionMessage } from './api';

export type ItemKind = 'user' | 'assistant' | 'thinking' | 'tool' | 'error' | 'usage' | 'status' | 'other';

export interface Usage { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; cost?: number | null }

export interface Item {
  key: string;
  kind: ItemKind;
  text: string;
  toolName?: string;
  toolCallId?: string;
  input?: unknown;
  output?: string | null;
  isError?: boolean;
  usage?: Usage | null;
  streaming?: boolean;
  runId?: string;
  seq?: number;
  messageId?: string;
  timestamp?: string | null;
}

function parseJson(s: string | null): unknown {
  if (s == null) return null;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

/** History messages (oldest first) to items; a tool result is folded into its call. */
export function historyItems(messages: SessionMessage[]): Item[] {
  const out: Item[] = [];
  const calls = new Map<string, Item>();
  for (const m of messages) {
    const base = { key: 'h:' + m.id, messageId: m.id, timestamp: m.timestamp };
    if (m.kind === 'tool_call') {
      const it: Item = { ...base, kind: 'tool', text: '', toolName: m.toolName ?? 'tool', toolCallId: m.toolCallId ?? undefined, input: parseJson(m.toolInputJson), output: null };
      if (m.toolCallId) calls.set(m.toolCallId, it);
      out.push(it);
    } else if (m.kind === 'tool_result') {
      const call = m.toolCallId ? calls.get(m.toolCallId) : undefined;
      if (call) {
        call.output = m.toolOutput ?? m.text;
        call.isError = m.toolError;
      } else {
        out.push({ ...base, kind: 'tool', text: '', toolName: m.toolName ?? 'result', output: m.toolOutput ?? m.text, isError: m.toolError });
      }
    } else if (m.kind === 'thinking') {
      out.push({ ...base, kind: 'thinking', text: m.text });
    } else if (m.kind === 'error') {
      out.push({ ...base, kind: 'error', text: m.text });
    } else if (m.role === 'user') {
      out.push({ ...base, kind: 'user', text: m.text });
    } else if (m.role === 'assistant') {
      const u = m.usage;
      out.push({
        ...base, kind: 'assistant', text: m.text,
        usage: u ? { input: u.inputTokens, output: u.outputTokens, cacheRead: u.cacheReadTokens, cacheWrite: u.cacheWriteTokens } : null,
      });
    } else {
      out.push({ ...base, kind: 'other', text: m.text });
    }
  }
  return out;
}

export interface PermissionRequest {
  requestId: string; runId: string; toolName: string; input: unknown; expiresAt: string; seq: number;
}

export interface RunState {
  runId: string;
  lastSeq: number;
  status: string; // running, completed, failed, cancelled, timed_out
  firstAt?: string;
}

/** A frame of /ws (docs/live-channels.md). */
export interface Frame {
  type: string; seq: number; runId?: string; sessionId?: string; clientRequestId?: string;
  event?: { kind: string; data: any; at?: string };
  requestId?: string; toolName?: string; input?: unknown; expiresAt?: string;
  status?: string; exitCode?: number | null; usage?: Usage | null; reason?: string; afterSeq?: number;
  provider?: string; error?: { code: string; message: string };
}

/**
 * The live part of a conversation. apply() returns true when the items changed. Items are keyed by run and seq, so
 * they are stable across re-renders.
 */
export class LiveThread {
  items: Item[] = [];
  runs = new Map<string, RunState>();
  permissions = new Map<string, PermissionRequest>();
  private calls = new Map<string, Item>();
  private streamingByRun = new Map<string, Item>();
  sessionId: string | null = null;

  run(runId: string): RunState {
    let r = this.runs.get(runId);
    if (!r) {
      r = { runId, lastSeq: 0, status: 'running' };
      this.runs.set(runId, r);
    }
    return r;
  }

  /** The seq to resume a run from. */
  lastSeq(runId: string) {
    return this.runs.get(runId)?.lastSeq ?? 0;
  }

  addLocalUser(text: string, key: string) {
    this.items.push({ key, kind: 'user', text });
  }

  apply(f: Frame): boolean {
    if (!f.runId) return false;
    const run = this.run(f.runId);
    switch (f.type) {
      case 'subscribed':
        if (f.status && f.status !== 'running' && f.status !== 'queued' && f.status !== 'pending') run.status = f.status;
        if (f.sessionId) this.sessionId = f.sessionId;
        return false;
      case 'session-created':
        if (f.sessionId) this.sessionId = f.sessionId;
        return false;
      case 'permission-request':
        if (!f.requestId) return false;
        // a notice repeats its entry's seq; it is shown only while the request is open
        if (this.answered.has(f.requestId)) return false;
        this.permissions.set(f.requestId, {
          requestId: f.requestId, runId: f.runId, toolName: f.toolName ?? 'tool', input: f.input,
          expiresAt: f.expiresAt ?? '', seq: f.seq,
        });
        return true;
      case 'event':
        if (f.seq <= run.lastSeq) return false; // already applied: a replay after a reconnect
        run.lastSeq = f.seq;
        if (!run.firstAt && f.event?.at) run.firstAt = f.event.at;
        return this.applyEvent(run, f);
      case 'complete': {
        if (f.seq <= run.lastSeq && run.status !== 'running') return false;
        run.lastSeq = Math.max(run.lastSeq, f.seq);
        run.status = f.status ?? 'completed';
        const streaming = this.streamingByRun.get(run.runId);
        if (streaming) {
          streaming.streaming = false;
          this.streamingByRun.delete(run.runId);
        }
        for (const [id, p] of this.permissions) if (p.runId === run.runId) this.permissions.delete(id);
        const ok = run.status === 'completed' || run.status === 'succeeded';
        this.items.push({
          key: `r:${run.runId}:complete`, kind: 'status', runId: run.runId, seq: f.seq, usage: f.usage ?? null,
          isError: !ok,
          text: ok ? 'Turn finished' : `Turn ${run.status}${f.reason ? ': ' + f.reason : ''}${f.exitCode != null ? ` (exit ${f.exitCode})` : ''}`,
        });
        return true;
      }
      default:
        return false;
    }
  }

  private answered = new Set<string>();

  private applyEvent(run: RunState, f: Frame): boolean {
    const ev = f.event!;
    const d = ev.data ?? {};
    const key = `r:${run.runId}:${f.seq}`;
    switch (ev.kind) {
      case 'text-delta': {
        let s = this.streamingByRun.get(run.runId);
        if (!s) {
          s = { key, kind: 'assistant', text: '', streaming: true, runId: run.runId, seq: f.seq };
          this.streamingByRun.set(run.runId, s);
          this.items.push(s);
        }
        s.text += String(d.text ?? '');
        // a new object so that memoized rows re-render
        this.replace(s, { ...s });
        return true;
      }
      case 'text': {
        if (d.role === 'user') return false; // the prompt is already shown
        const s = this.streamingByRun.get(run.runId);
        if (s) {
          this.streamingByRun.delete(run.runId);
          this.replace(s, { ...s, text: String(d.text ?? ''), streaming: false });
        } else {
          this.items.push({ key, kind: 'assistant', text: String(d.text ?? ''), runId: run.runId, seq: f.seq });
        }
        return true;
      }
      case 'thinking':
        this.items.push({ key, kind: 'thinking', text: String(d.text ?? ''), runId: run.runId, seq: f.seq });
        return true;
      case 'tool-use': {
        this.closeStreaming(run.runId);
        const it: Item = { key, kind: 'tool', text: '', toolName: d.toolName ?? 'tool', toolCallId: d.callId, input: d.input, output: null, runId: run.runId, seq: f.seq };
        if (d.callId) this.calls.set(d.callId, it);
        this.items.push(it);
        return true;
      }
      case 'tool-result': {
        const call = d.callId ? this.calls.get(d.callId) : undefined;
        const output = typeof d.output === 'string' ? d.output : JSON.stringify(d.output);
        if (call) {
          const next = { ...call, output, isError: !!d.isError };
          this.calls.set(d.callId, next);
          this.replace(call, next);
        } else {
          this.items.push({ key, kind: 'tool', text: '', toolName: 'result', output, isError: !!d.isError, runId: run.runId, seq: f.seq });
        }
        return true;
      }
      case 'usage':
        this.items.push({ key, kind: 'usage', text: '', usage: d, runId: run.runId, seq: f.seq });
        return true;
      case 'error':
        this.items.push({ key, kind: 'error', text: `${d.code ? d.code + ': ' : ''}${d.message ?? 'error'}`, runId: run.runId, seq: f.seq });
        return true;
      case 'permission-response':
        if (d.requestId) {
          this.answered.add(d.requestId);
          this.permissions.delete(d.requestId);
        }
        this.items.push({
          key, kind: 'other', runId: run.runId, seq: f.seq,
          text: `${d.toolName ?? 'Tool'}: ${d.decision === 'allow' ? 'allowed' : 'denied'}${d.reason && d.reason !== 'answered' ? ` (${d.reason})` : ''}`,
        });
        return true;
      case 'completed':
        if (d.success === false && d.resultText) {
          this.items.push({ key, kind: 'error', text: String(d.resultText), runId: run.runId, seq: f.seq });
          return true;
        }
        return false;
      case 'stderr':
        return false;
      default:
        return false; // session, status, native, permission-request (shown from its notice), unrecognized
    }
  }

  private closeStreaming(runId: string) {
    const s = this.streamingByRun.get(runId);
    if (s) {
      this.streamingByRun.delete(runId);
      this.replace(s, { ...s, streaming: false });
    }
  }

  private replace(old: Item, next: Item) {
    const i = this.items.lastIndexOf(old);
    if (i >= 0) this.items[i] = next;
    if (this.streamingByRun.get(old.runId ?? '') === old && next.streaming) this.streamingByRun.set(old.runId!, next);
  }

  /** The runs still going. */
  activeRuns(): string[] {
    return [...this.runs.values()].filter((r) => r.status === 'running').map((r) => r.runId);
  }
}

/** Short human numbers for usage lines. */
export function formatUsage(u: Usage | null | undefined): string {
  if (!u) return '';
  const parts: string[] = [];
  if (u.input != null) parts.push(`in ${u.input.toLocaleString('en')}`);
  if (u.output != null) parts.push(`out ${u.output.toLocaleString('en')}`);
  if (u.cacheRead) parts.push(`cache ${u.cacheRead.toLocaleString('en')}`);
  if (u.cost != null) parts.push(`$${u.cost.toFixed(4)}`);
  return parts.join(' · ');
}
