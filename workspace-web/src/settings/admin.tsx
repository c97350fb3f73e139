// The production agent loop (administrators): the review queue with each item's diff (keep or revert), workspace
// checkpoints with restore, background jobs, CI repair plans and the release policy form. docs/agent-loop.md.
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api, enc, type Project } from '../api';
import { ErrorText, Link, useAction, useResource, when } from './common';

interface ReviewItem { id: string; runId: string; projectId?: string | null; projectPath: string; agentType: string; route: string; status: string;
  summary: { added: number | null; modified: number | null; deleted: number | null }; createdAt: string; recordChanged?: boolean }
interface Job { id: string; kind: string; label: string; status: string; cancellable: boolean; progress?: number | null; createdAt: string }
interface Checkpoint { id: string; projectId: string; label?: string | null; commit: string; createdAt: string; createdBy?: string | null }
interface Plan { id: string; projectId: string; agentType: string; runId: string; status: string; failingJob?: string | null; createdAt: string; plan?: string | null; text?: string | null }
interface Policy { channel: string; autoUpdate: boolean; minimumVersion: string | null; rolloutPercent: number; maintenanceWindow: { days: string[]; start: string; durationMinutes: number; timezone: string } | null; updatedAt: string | null; updatedBy: string | null }

const BASE = '/api/production-agent-loop';

export default function AdminPage({ admin }: { admin: boolean }) {
  if (!admin) return <p>Only administrators see the agent loop.</p>;
  return (
    <div class="stack">
      <ReviewQueue />
      <Checkpoints />
      <Jobs />
      <Plans />
      <ReleasePolicy />
    </div>
  );
}

// the workspace's diff viewer (files, unified or side by side), loaded with the first diff opened here
const WorkspaceDiff = lazy(() => import('../workspace/diffview').then((m) => ({ default: m.DiffView })));

function ReviewDiff({ text, truncated }: { text: string; truncated?: boolean }) {
  const [mode, setMode] = useState<'unified' | 'split'>('unified');
  return (
    <div class="stack" role="region" aria-label="Diff">
      <div class="row"><button aria-pressed={mode === 'split'} onClick={() => setMode(mode === 'split' ? 'unified' : 'split')}>{mode === 'split' ? 'Unified' : 'Side by side'}</button></div>
      <Suspense fallback={<p>Loading the diff viewer…</p>}>
        <WorkspaceDiff text={text} truncated={truncated} mode={mode} />
      </Suspense>
    </div>
  );
}

function ReviewQueue() {
  const q = useResource<{ items: ReviewItem[]; pending: number }>(`${BASE}/review-queue?status=pending`);
  const [open, setOpen] = useState<string | null>(null);
  const [diff, setDiff] = useState<{ diff: string; truncated?: boolean } | null>(null);
  const act = useAction();
  useEffect(() => {
    setDiff(null);
    if (open) act.run(async () => setDiff(await api(`${BASE}/review-queue/${enc(open)}/diff`)));
  }, [open]);
  const decide = (id: string, what: 'approve' | 'reject', revert = false) => act.run(async () => {
    await api(`${BASE}/review-queue/${enc(id)}/${what}`, { method: 'POST', body: what === 'reject' ? { revert } : {} });
    setOpen(null);
    q.reload();
  });
  return (
    <section class="panel stack" aria-label="Review queue">
      <h2>Review queue {q.data ? `(${q.data.pending} pending)` : ''}</h2>
      <ErrorText message={q.error || act.error} />
      <ul>
        {(q.data?.items ?? []).map((it) => (
          <li key={it.id} class="stack">
            <div class="row">
              <button class="link" aria-expanded={open === it.id} onClick={() => setOpen(open === it.id ? null : it.id)}>{it.projectId ?? it.projectPath}</button>
              <span class="muted small">{it.agentType} · {it.route} · {when(it.createdAt)} · +{it.summary.added ?? 0} ~{it.summary.modified ?? 0} −{it.summary.deleted ?? 0}</span>
              <Link href={`/settings/runs/${enc(it.runId)}`}>run</Link>
            </div>
            {open === it.id && (
              <>
                {diff ? <ReviewDiff text={diff.diff} truncated={diff.truncated} /> : <p>Loading the diff…</p>}
                <div class="row">
                  <button class="primary" onClick={() => decide(it.id, 'approve')}>Keep</button>
                  <button class="danger" disabled={it.recordChanged} onClick={() => confirm('Put the files back as they were before the run?') && decide(it.id, 'reject', true)}>Revert</button>
                  <button onClick={() => decide(it.id, 'reject')}>Reject, keep the files</button>
                </div>
              </>
            )}
          </li>
        ))}
        {q.data?.items.length === 0 && <li class="muted">Nothing waits for review.</li>}
      </ul>
    </section>
  );
}

function Checkpoints() {
  const projects = useResource<Project[]>('/api/projects');
  const [project, setProject] = useState('');
  const list = useResource<{ checkpoints: Checkpoint[] }>(project ? `${BASE}/checkpoints?projectId=${enc(project)}` : null);
  const act = useAction();
  const [done, setDone] = useState('');
  return (
    <section class="panel stack" aria-label="Checkpoints">
      <h2>Checkpoints</h2>
      <div class="row">
        <label>Project <select value={project} onChange={(e) => setProject(e.currentTarget.value)}><option value="">choose…</option>
          {(projects.data ?? []).map((p) => <option key={p.name} value={p.name}>{p.displayName || p.name}</option>)}</select></label>
        {project && <button onClick={() => act.run(async () => { await api(`${BASE}/checkpoints`, { method: 'POST', body: { projectId: project } }); list.reload(); })}>Checkpoint now</button>}
      </div>
      <ErrorText message={list.error || act.error} />
      <ul>
        {(list.data?.checkpoints ?? []).map((c) => (
          <li key={c.id}>{when(c.createdAt)} {c.label ?? ''} <code class="small">{c.commit.slice(0, 10)}</code>{' '}
            <button onClick={() => confirm('Put the project\u2019s files back as they were at this checkpoint?') && act.run(async () => {
              await api(`${BASE}/checkpoints/${enc(c.id)}/restore`, { method: 'POST', body: { projectId: project } });
              setDone('Restored.');
            })}>Restore</button></li>
        ))}
      </ul>
      {done && <p role="status">{done}</p>}
    </section>
  );
}

function Jobs() {
  const jobs = useResource<{ jobs: Job[] }>(`${BASE}/jobs`);
  const act = useAction();
  useEffect(() => { const t = setInterval(jobs.reload, 5000); return () => clearInterval(t); }, []);
  return (
    <section class="panel stack" aria-label="Background jobs">
      <h2>Background jobs</h2>
      <ErrorText message={jobs.error || act.error} />
      <ul>
        {(jobs.data?.jobs ?? []).map((j) => (
          <li key={j.id}>{j.label} <span class="state">{j.status}</span> {typeof j.progress === 'number' && <progress value={j.progress} max={1} aria-label={`${j.label} progress`} />}
            {j.cancellable && <button onClick={() => act.run(async () => { await api(`${BASE}/jobs/${enc(j.id)}/cancel`, { method: 'POST', body: {} }); jobs.reload(); })}>Cancel</button>}</li>
        ))}
        {jobs.data?.jobs.length === 0 && <li class="muted">Nothing runs in the background.</li>}
      </ul>
    </section>
  );
}

function Plans() {
  const plans = useResource<{ plans: Plan[] }>(`${BASE}/ci-repair-plans`);
  const [open, setOpen] = useState<Plan | null>(null);
  const act = useAction();
  return (
    <section class="panel stack" aria-label="CI repair plans">
      <h2>CI repair plans</h2>
      <ErrorText message={plans.error || act.error} />
      <ul>
        {(plans.data?.plans ?? []).map((p) => (
          <li key={p.id}><button class="link" onClick={() => act.run(async () => setOpen(await api<Plan>(`${BASE}/ci-repair-plans/${enc(p.id)}`)))}>{p.projectId}{p.failingJob ? ` · ${p.failingJob}` : ''}</button> <span class="state">{p.status}</span> <span class="muted small">{when(p.createdAt)}</span></li>
        ))}
        {plans.data?.plans.length === 0 && <li class="muted">No plans.</li>}
      </ul>
      {open && <pre class="log" tabIndex={0}>{open.plan ?? open.text ?? JSON.stringify(open, null, 2)}</pre>}
    </section>
  );
}

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

function ReleasePolicy() {
  const pol = useResource<Policy>(`${BASE}/release-policy`);
  const [form, setForm] = useState<Policy | null>(null);
  const [saved, setSaved] = useState('');
  const act = useAction();
  useEffect(() => { if (pol.data) setForm(pol.data); }, [pol.data]);
  if (!form) return <section class="panel" aria-label="Release policy"><h2>Release policy</h2><ErrorText message={pol.error} /></section>;
  const set = (p: Partial<Policy>) => setForm({ ...form, ...p });
  const mw = form.maintenanceWindow;
  async function save(e: Event) {
    e.preventDefault();
    const body = { channel: form!.channel, autoUpdate: form!.autoUpdate, minimumVersion: form!.minimumVersion || null, rolloutPercent: form!.rolloutPercent, maintenanceWindow: form!.maintenanceWindow };
    const r = await act.run(() => api<Policy>(`${BASE}/release-policy`, { method: 'PUT', body }));
    if (r) { pol.setData(r); setSaved('Saved.'); }
  }
  return (
    <form class="panel stack" aria-label="Release policy" onSubmit={save}>
      <h2>Release policy</h2>
      <div class="row">
        <label>Channel <select value={form.channel} onChange={(e) => set({ channel: e.currentTarget.value })}>{['stable', 'beta', 'nightly'].map((c) => <option key={c}>{c}</option>)}</select></label>
        <label>Minimum version <input value={form.minimumVersion ?? ''} placeholder="e.g. 1.4.0" onInput={(e) => set({ minimumVersion: e.currentTarget.value || null })} /></label>
        <label>Rollout % <input type="number" min={0} max={100} value={form.rolloutPercent} onInput={(e) => set({ rolloutPercent: Number(e.currentTarget.value) })} /></label>
      </div>
      <label class="row"><input type="checkbox" checked={form.autoUpdate} onChange={(e) => set({ autoUpdate: e.currentTarget.checked })} /> Update automatically</label>
      <label class="row"><input type="checkbox" checked={!!mw} onChange={(e) => set({ maintenanceWindow: e.currentTarget.checked ? { days: ['sun'], start: '03:00', durationMinutes: 60, timezone: 'UTC' } : null })} /> Only in a maintenance window</label>
      {mw && (
        <div class="row">
          {DAYS.map((d) => <label key={d} class="row"><input type="checkbox" checked={mw.days.includes(d)} onChange={(e) => set({ maintenanceWindow: { ...mw, days: e.currentTarget.checked ? [...mw.days, d] : mw.days.filter((x) => x !== d) } })} /> {d}</label>)}
          <label>Start <input type="time" value={mw.start} onInput={(e) => set({ maintenanceWindow: { ...mw, start: e.currentTarget.value } })} /></label>
          <label>Minutes <input type="number" min={1} max={1440} value={mw.durationMinutes} onInput={(e) => set({ maintenanceWindow: { ...mw, durationMinutes: Number(e.currentTarget.value) } })} /></label>
          <label>Time zone <input value={mw.timezone} onInput={(e) => set({ maintenanceWindow: { ...mw, timezone: e.currentTarget.value } })} /></label>
        </div>
      )}
      <p class="muted small">Last changed {when(form.updatedAt)}{form.updatedBy ? ` by ${form.updatedBy}` : ''}.</p>
      <div class="row"><button class="primary" type="submit" disabled={act.busy}>Save policy</button></div>
      {saved && <p role="status">{saved}</p>}
      <ErrorText message={act.error} />
    </form>
  );
}
