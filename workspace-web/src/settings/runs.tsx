// Runs: the recent agent runs (live status, provider, project, duration, cost), filtered and paged; a run opens
// its live event stream (SSE, resumed by the browser with Last-Event-ID) and can be cancelled.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { PROVIDERS } from '../ui';
import { duration, ErrorText, followSse, Link, useAction, useResource, useTicker, when } from './common';

interface Run {
  id: string; status: string; agentType: string; model?: string | null; projectId?: string | null; taskId?: string | null;
  sessionId?: string | null; createdAt: string; startedAt?: string | null; finishedAt?: string | null; exitCode?: number | null;
  resultText?: string | null; usage?: { cost?: number | null; costUsd?: number | null; input?: number; output?: number } | null;
  error?: { code: string; message: string } | null; logs: { seq: number; at: string; stream: string; text: string }[];
}
interface AgentEvent { seq: number; kind: string; at?: string; data?: any }

const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled', 'timed_out'];
const LIVE = new Set(['queued', 'running']);
const PAGE = 25;

export default function RunsPage({ sub }: { sub?: string }) {
  return sub ? <RunView key={sub} id={sub} /> : <RunList />;
}

function cost(r: Run) {
  const c = r.usage?.cost ?? r.usage?.costUsd;
  return typeof c === 'number' ? `$${c.toFixed(4)}` : '';
}

function RunList() {
  const [status, setStatus] = useState('');
  const [provider, setProvider] = useState('');
  const [project, setProject] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const q = new URLSearchParams({ limit: String(limit) });
  if (status) q.set('status', status);
  if (project.trim()) q.set('projectId', project.trim());
  const runs = useResource<Run[]>(`/api/automation/runs?${q}`);
  const list = (runs.data ?? []).filter((r) => !provider || r.agentType === provider);
  const anyLive = list.some((r) => LIVE.has(r.status));
  useEffect(() => {
    // live status: poll while the list is shown (faster while a run is active)
    const t = setInterval(runs.reload, anyLive ? 2000 : 8000);
    return () => clearInterval(t);
  }, [anyLive, runs.reload]);
  useTicker(1000, anyLive);
  return (
    <div class="stack">
      <div class="row" role="search" aria-label="Filter runs">
        <label>Status <select value={status} onChange={(e) => { setStatus(e.currentTarget.value); setLimit(PAGE); }}><option value="">any</option>{STATUSES.map((s) => <option key={s}>{s}</option>)}</select></label>
        <label>Provider <select value={provider} onChange={(e) => setProvider(e.currentTarget.value)}><option value="">any</option>{PROVIDERS.map((p) => <option key={p}>{p}</option>)}</select></label>
        <label>Project <input value={project} onChange={(e) => { setProject(e.currentTarget.value); setLimit(PAGE); }} placeholder="name" /></label>
      </div>
      <ErrorText message={runs.error} />
      <div class="table-wrap">
        <table class="list">
          <thead><tr><th>Started</th><th>Status</th><th>Provider</th><th>Project</th><th>Duration</th><th>Cost</th></tr></thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id}>
                <td><Link href={`/settings/runs/${enc(r.id)}`}>{when(r.createdAt)}</Link>{r.taskId && <span class="muted small"> · task</span>}</td>
                <td><span class={`state${r.status === 'completed' ? ' ok' : r.status === 'failed' || r.status === 'timed_out' ? ' bad' : ''}`}>{r.status}</span></td>
                <td>{r.agentType}{r.model ? <span class="muted small"> {r.model}</span> : null}</td>
                <td>{r.projectId ?? '—'}</td>
                <td>{duration(r.startedAt ?? r.createdAt, r.finishedAt)}</td>
                <td>{cost(r)}</td>
              </tr>
            ))}
            {runs.data && list.length === 0 && <tr><td colSpan={6} class="muted">No runs.</td></tr>}
          </tbody>
        </table>
      </div>
      {runs.data && runs.data.length >= limit && limit < 200 && <div class="row"><button onClick={() => setLimit(Math.min(200, limit + PAGE))}>Show more</button></div>}
    </div>
  );
}

function eventText(e: AgentEvent): string {
  const d = e.data ?? {};
  switch (e.kind) {
    case 'text': return d.text ?? '';
    case 'text-delta': return d.text ?? '';
    case 'thinking': return `(thinking) ${d.text ?? ''}`;
    case 'tool-use': return `→ ${d.toolName ?? 'tool'} ${typeof d.input === 'string' ? d.input : JSON.stringify(d.input ?? {})}`;
    case 'tool-result': return `← ${d.isError ? 'error: ' : ''}${typeof d.output === 'string' ? d.output.slice(0, 2000) : JSON.stringify(d.output ?? '')}`;
    case 'usage': return `usage: ${d.input ?? 0} in, ${d.output ?? 0} out${typeof d.cost === 'number' ? `, $${d.cost.toFixed(4)}` : ''}`;
    case 'error': return `error ${d.code ?? ''}: ${d.message ?? ''}`;
    case 'completed': return d.success === false ? 'completed: not successful' : 'completed';
    case 'session': return `session ${d.sessionId ?? ''}`;
    default: return e.kind;
  }
}

function RunView({ id }: { id: string }) {
  const run = useResource<Run>(`/api/automation/runs/${enc(id)}`);
  const [events, setEvents] = useState<AgentEvent[]>([]);
  const [streamState, setStreamState] = useState<'connecting' | 'live' | 'ended'>('connecting');
  const [status, setStatus] = useState('');
  const act = useAction();
  const box = useRef<HTMLDivElement>(null);
  useTicker(1000, streamState === 'live');

  useEffect(() => {
    const seen = new Set<number>();
    return followSse(`/api/automation/runs/${enc(id)}/events`, {
      event: (e: AgentEvent) => {
        setStreamState('live');
        if (seen.has(e.seq)) return; // a reconnect replays after Last-Event-ID; never show one twice
        seen.add(e.seq);
        setEvents((l) => {
          // consecutive text deltas are joined into one line
          const last = l[l.length - 1];
          if (e.kind === 'text-delta' && last?.kind === 'text-delta') return [...l.slice(0, -1), { ...last, data: { text: (last.data?.text ?? '') + (e.data?.text ?? '') } }];
          // the final text after its deltas repeats them: it replaces the joined line
          if (e.kind === 'text' && last?.kind === 'text-delta' && (last.data?.text ?? '') === (e.data?.text ?? '')) return [...l.slice(0, -1), e];
          return [...l.slice(-4999), e];
        });
      },
      status: (s) => { setStreamState('live'); setStatus(s?.status ?? ''); },
      log: () => setStreamState('live'),
      done: (r: Run) => { run.setData(r); setStatus(r.status); },
      error: (e) => act.setError(e?.message ?? e?.error?.message ?? 'The stream failed.'),
    }, () => { setStreamState('ended'); run.reload(); });
  }, [id]);

  useEffect(() => {
    const el = box.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [events]);

  const r = run.data;
  const current = status || r?.status || '';
  return (
    <div class="stack">
      <p><Link href="/settings/runs">← All runs</Link>{r?.taskId && <> · <Link href={`/settings/tasks/${enc(r.taskId)}`}>its task</Link></>}</p>
      <h2>Run <code class="small">{id}</code></h2>
      <ErrorText message={run.error || act.error} />
      {r && (
        <div class="panel stack">
          <div class="row">
            <span class="state run-status" role="status">{current}</span>
            <span>{r.agentType}{r.model ? ` · ${r.model}` : ''}</span>
            <span class="muted">{r.projectId ?? ''}</span>
            <span class="muted">{duration(r.startedAt ?? r.createdAt, r.finishedAt)}</span>
            <span>{cost(r)}</span>
            <span class="spacer" />
            <span class="muted small stream-state">stream: {streamState}</span>
            {LIVE.has(current) && <button class="danger" disabled={act.busy} onClick={() => act.run(async () => { await api(`/api/automation/runs/${enc(id)}/cancel`, { method: 'POST', body: {} }); run.reload(); })}>Cancel run</button>}
          </div>
          {r.error && <p class="error">{r.error.code}: {r.error.message}</p>}
        </div>
      )}
      <h3>Events</h3>
      <div class="log run-events" tabIndex={0} ref={box} aria-label="Run events" aria-live="off">
        {events.map((e) => <div key={e.seq} class={`ev ev-${e.kind}`}>{eventText(e)}</div>)}
        {events.length === 0 && <span class="muted">{streamState === 'ended' ? 'No events.' : 'Waiting for events…'}</span>}
      </div>
      {r?.resultText && <><h3>Result</h3><pre class="panel">{r.resultText}</pre></>}
      {r && r.logs.length > 0 && (
        <details><summary>Log ({r.logs.length} lines)</summary>
          <pre class="log" tabIndex={0}>{r.logs.map((l) => `${l.stream === 'stderr' ? '! ' : ''}${l.text}`).join('\n')}</pre></details>
      )}
    </div>
  );
}
