// Tasks: scheduled prompts. Create and edit with a once / interval / cron schedule and the next run times
// previewed in the chosen zone (computed here with croner, the same rules as the server's, docs/tasks.md);
// pause, resume, cancel, delete; a task's runs and logs.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, enc, type Project } from '../api';
import { navigate } from '../router';
import { PROVIDERS } from '../ui';
import { ErrorText, Link, useAction, useResource, useTicker, when } from './common';
import { describeSchedule, formatInZone, isoToLocalInput, localInputToIso, previewSchedule, validZone, type Schedule } from './schedule';

export interface Task {
  id: string; name: string; prompt: string; agentType: string; model?: string | null; projectId: string; schedule: Schedule;
  status: string; nextRunAt: string | null; lastRunAt: string | null; lastRunStatus?: string | null; runCount: number;
  timeoutMs?: number | null; activeRunId?: string | null; createdAt: string; updatedAt: string;
}
interface RunLine { seq: number; at: string; stream: string; text: string }
interface TaskDetail extends Task { recentRuns: { id: string; status: string; createdAt: string; finishedAt?: string | null }[]; recentLogs: RunLine[] }

const ENDED = new Set(['completed', 'failed', 'cancelled']);

export default function TasksPage({ sub }: { sub?: string }) {
  if (sub === 'new') return <TaskForm />;
  if (sub?.endsWith('/edit')) return <EditTask id={sub.slice(0, -5)} />;
  if (sub) return <TaskView id={sub} />;
  return <TaskList />;
}

function TaskList() {
  const tasks = useResource<Task[]>('/api/automation/tasks');
  const act = useAction();
  useEffect(() => {
    const t = setInterval(tasks.reload, 5000);
    return () => clearInterval(t);
  }, []);
  return (
    <div class="stack">
      <div class="row"><p class="muted spacer">A task sends a prompt to a provider in a project on a schedule; each time is a run.</p>
        <button class="primary" onClick={() => navigate('/settings/tasks/new')}>New task</button></div>
      <ErrorText message={tasks.error || act.error} />
      <div class="table-wrap">
        <table class="list">
          <thead><tr><th>Task</th><th>Schedule</th><th>Status</th><th>Next run</th><th>Last run</th><th>Runs</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(tasks.data ?? []).map((t) => (
              <tr key={t.id}>
                <td><Link href={`/settings/tasks/${enc(t.id)}`}>{t.name}</Link><div class="muted small">{t.agentType} · {t.projectId}</div></td>
                <td>{describeSchedule(t.schedule)}</td>
                <td><span class="state">{t.status}</span></td>
                <td>{when(t.nextRunAt)}</td>
                <td>{t.lastRunAt ? `${when(t.lastRunAt)} ${t.lastRunStatus ?? ''}` : '—'}</td>
                <td>{t.runCount}</td>
                <td><TaskActions task={t} onDone={tasks.reload} act={act} /></td>
              </tr>
            ))}
            {tasks.data?.length === 0 && <tr><td colSpan={7} class="muted">No tasks yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function TaskActions({ task, onDone, act }: { task: Task; onDone: () => void; act: ReturnType<typeof useAction> }) {
  const post = (what: string) => act.run(async () => { await api(`/api/automation/tasks/${enc(task.id)}/${what}`, { method: 'POST', body: {} }); onDone(); });
  const ended = ENDED.has(task.status);
  return (
    <span class="row">
      {!ended && <button onClick={() => navigate(`/settings/tasks/${enc(task.id)}/edit`)}>Edit</button>}
      {(task.status === 'scheduled' || task.status === 'running') && <button onClick={() => post('pause')}>Pause</button>}
      {task.status === 'paused' && <button onClick={() => post('resume')}>Resume</button>}
      {!ended && <button onClick={() => confirm(`Cancel “${task.name}”? It will not run again.`) && post('cancel')}>Cancel</button>}
      <button class="danger" onClick={() => confirm(`Delete “${task.name}” and its run history?`) && act.run(async () => {
        await api(`/api/automation/tasks/${enc(task.id)}`, { method: 'DELETE' });
        onDone();
      })}>Delete</button>
    </span>
  );
}

function TaskView({ id }: { id: string }) {
  const task = useResource<TaskDetail>(`/api/automation/tasks/${enc(id)}`);
  const act = useAction();
  useEffect(() => {
    const t = setInterval(task.reload, 3000);
    return () => clearInterval(t);
  }, []);
  const t = task.data;
  return (
    <div class="stack">
      <p><Link href="/settings/tasks">← All tasks</Link></p>
      <ErrorText message={task.error || act.error} />
      {t && (
        <>
          <h2>{t.name}</h2>
          <div class="panel stack">
            <div class="row"><span class="state">{t.status}</span> <span>{describeSchedule(t.schedule)}</span> <span class="muted">next: {when(t.nextRunAt)}</span></div>
            <div class="small muted">{t.agentType}{t.model ? ` · ${t.model}` : ''} · project {t.projectId} · {t.runCount} runs</div>
            <pre>{t.prompt}</pre>
            <TaskActions task={t} onDone={() => (ENDED.has(t.status) ? task.reload() : task.reload())} act={act} />
            {t.activeRunId && <p>Running now: <Link href={`/settings/runs/${enc(t.activeRunId)}`}>open the live run</Link></p>}
          </div>
          <h3>Runs</h3>
          <ul>
            {t.recentRuns.map((r) => <li key={r.id}><Link href={`/settings/runs/${enc(r.id)}`}>{when(r.createdAt)}</Link> <span class="state">{r.status}</span></li>)}
            {t.recentRuns.length === 0 && <li class="muted">No runs yet.</li>}
          </ul>
          <h3>Recent log</h3>
          <pre class="log" tabIndex={0} aria-label="Task log">{t.recentLogs.map((l) => `${new Date(l.at).toLocaleTimeString()} ${l.stream === 'stderr' ? '! ' : ''}${l.text}`).join('\n') || '—'}</pre>
        </>
      )}
    </div>
  );
}

function EditTask({ id }: { id: string }) {
  const task = useResource<Task>(`/api/automation/tasks/${enc(id)}`);
  if (task.error) return <ErrorText message={task.error} />;
  return task.data ? <TaskForm initial={task.data} /> : <p>Loading…</p>;
}

const UNITS = [{ label: 'minutes', s: 60 }, { label: 'hours', s: 3600 }, { label: 'days', s: 86400 }];

function zones(): string[] {
  const anyIntl = Intl as any;
  try {
    return typeof anyIntl.supportedValuesOf === 'function' ? ['UTC', ...anyIntl.supportedValuesOf('timeZone')] : ['UTC'];
  } catch {
    return ['UTC'];
  }
}

function TaskForm({ initial }: { initial?: Task }) {
  const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const projects = useResource<Project[]>('/api/projects');
  const [name, setName] = useState(initial?.name ?? '');
  const [prompt, setPrompt] = useState(initial?.prompt ?? '');
  const [agentType, setAgentType] = useState(initial?.agentType ?? 'claude');
  const [model, setModel] = useState(initial?.model ?? '');
  const [projectId, setProjectId] = useState(initial?.projectId ?? '');
  const [timeoutMin, setTimeoutMin] = useState(initial?.timeoutMs ? String(initial.timeoutMs / 60000) : '');
  const s0 = initial?.schedule;
  const [kind, setKind] = useState<Schedule['kind']>(s0?.kind ?? 'cron');
  const [at, setAt] = useState(s0?.kind === 'once' ? isoToLocalInput(s0.at) : isoToLocalInput(new Date(Date.now() + 3600_000).toISOString()));
  const [every, setEvery] = useState(s0?.kind === 'interval' ? String(s0.everySeconds / (s0.everySeconds % 86400 === 0 ? 86400 : s0.everySeconds % 3600 === 0 ? 3600 : 60)) : '1');
  const [unit, setUnit] = useState(s0?.kind === 'interval' ? (s0.everySeconds % 86400 === 0 ? 86400 : s0.everySeconds % 3600 === 0 ? 3600 : 60) : 3600);
  const [startAt, setStartAt] = useState(s0?.kind === 'interval' && s0.startAt ? isoToLocalInput(s0.startAt) : '');
  const [expression, setExpression] = useState(s0?.kind === 'cron' ? s0.expression : '0 9 * * 1-5');
  const [timezone, setTimezone] = useState(s0?.kind === 'cron' ? s0.timezone ?? 'UTC' : browserZone);
  const act = useAction();
  useTicker(30_000);
  const zoneList = useMemo(zones, []);

  useEffect(() => {
    if (!projectId && projects.data?.length) setProjectId(projects.data[0].name);
  }, [projects.data]);

  const schedule: Schedule = kind === 'once' ? { kind, at: localInputToIso(at) }
    : kind === 'interval' ? { kind, everySeconds: Math.round(Number(every) * unit), ...(startAt ? { startAt: localInputToIso(startAt) } : {}) }
    : { kind, expression: expression.trim(), timezone: timezone.trim() || 'UTC' };
  const preview = previewSchedule(schedule, new Date(), 5);
  const shownZone = kind === 'cron' && validZone(timezone) ? timezone : browserZone;

  async function save(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = { name: name.trim() || undefined, prompt, agentType, schedule };
    if (initial) {
      body.model = model.trim() || null;
      body.timeoutMs = timeoutMin ? Math.round(Number(timeoutMin) * 60000) : null;
    } else {
      body.projectId = projectId;
      if (model.trim()) body.model = model.trim();
      if (timeoutMin) body.timeoutMs = Math.round(Number(timeoutMin) * 60000);
    }
    if (body.name === undefined) delete body.name;
    const t = await act.run(() => api<Task>(initial ? `/api/automation/tasks/${enc(initial.id)}` : '/api/automation/tasks',
      { method: initial ? 'PATCH' : 'POST', body }));
    if (t) navigate(`/settings/tasks/${enc(t.id)}`);
  }

  return (
    <form class="stack" onSubmit={save} aria-label={initial ? 'Edit task' : 'New task'}>
      <p><Link href="/settings/tasks">← All tasks</Link></p>
      <h2>{initial ? `Edit “${initial.name}”` : 'New task'}</h2>
      <label>Name (optional) <input value={name} onInput={(e) => setName(e.currentTarget.value)} maxLength={200} /></label>
      <label>Prompt <textarea rows={4} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} required /></label>
      <div class="row">
        <label>Provider <select value={agentType} onChange={(e) => setAgentType(e.currentTarget.value)}>{PROVIDERS.map((p) => <option key={p}>{p}</option>)}</select></label>
        <label>Model (optional) <input value={model} onInput={(e) => setModel(e.currentTarget.value)} /></label>
        {!initial && (
          <label>Project <select value={projectId} onChange={(e) => setProjectId(e.currentTarget.value)} required>
            {(projects.data ?? []).map((p) => <option key={p.name} value={p.name}>{p.displayName || p.name}</option>)}
          </select></label>
        )}
        <label>Time limit, minutes (optional) <input type="number" min={1} max={1440} value={timeoutMin} onInput={(e) => setTimeoutMin(e.currentTarget.value)} /></label>
      </div>
      <fieldset class="stack">
        <legend>Schedule</legend>
        <div class="row" role="radiogroup" aria-label="Schedule kind">
          {(['once', 'interval', 'cron'] as const).map((k) => (
            <label key={k} class="row"><input type="radio" name="kind" checked={kind === k} onChange={() => setKind(k)} /> {k === 'once' ? 'Once' : k === 'interval' ? 'Every …' : 'Cron'}</label>
          ))}
        </div>
        {kind === 'once' && <label>At (your time, {browserZone}) <input type="datetime-local" step={1} value={at} onInput={(e) => setAt(e.currentTarget.value)} required /></label>}
        {kind === 'interval' && (
          <div class="row">
            <label>Every <input type="number" min={1} value={every} onInput={(e) => setEvery(e.currentTarget.value)} required /></label>
            <label>Unit <select value={String(unit)} onChange={(e) => setUnit(Number(e.currentTarget.value))}>{UNITS.map((u) => <option key={u.s} value={String(u.s)}>{u.label}</option>)}</select></label>
            <label>Starting (optional) <input type="datetime-local" value={startAt} onInput={(e) => setStartAt(e.currentTarget.value)} /></label>
          </div>
        )}
        {kind === 'cron' && (
          <div class="row">
            <label>Cron expression <input value={expression} onInput={(e) => setExpression(e.currentTarget.value)} required aria-describedby="cron-help" /></label>
            <label>Time zone <input value={timezone} list="zones" onInput={(e) => setTimezone(e.currentTarget.value)} /></label>
            <datalist id="zones">{zoneList.map((z) => <option key={z} value={z} />)}</datalist>
            <p id="cron-help" class="muted small">Five fields: minute hour day-of-month month day-of-week, e.g. <code>0 9 * * 1-5</code> (weekdays at 9:00).</p>
          </div>
        )}
        <div aria-live="polite">
          {preview.error ? <p class="error">{preview.error}</p> : (
            <>
              <p class="small muted">Next runs ({shownZone}):</p>
              <ol class="next-runs" aria-label="Next runs">{preview.times.map((d) => <li key={d.getTime()}>{formatInZone(d, shownZone)}</li>)}</ol>
            </>
          )}
        </div>
      </fieldset>
      <ErrorText message={act.error || projects.error} />
      <div class="row"><button class="primary" type="submit" disabled={act.busy || !!preview.error}>{initial ? 'Save task' : 'Create task'}</button></div>
    </form>
  );
}
