// The git panel: branch with ahead/behind, the status grouped (staged, modified, added, deleted, untracked) with
// stage/unstage, commit, push, pull, branch checkout, and the diff viewer. Every call goes to the /api/git routes;
// a failure shows the error envelope's message.
import { memo } from 'preact/compat';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { describe } from './files';
import { DiffView } from './diffview';
import { useAgentChanged } from './agentchanged';

interface GitStatus { branch: string; ahead: number; behind: number; modified: string[]; added: string[]; deleted: string[]; untracked: string[]; staged: string[] }
interface Branches { current: string; local: string[]; remote: string[] }
interface LogCommit { hash: string; shortHash: string; subject: string; author: string; authorEmail: string; date: string }
interface GitLog { commits: LogCommit[]; next: string | null }
interface DiffState { title: string; text: string; truncated?: boolean }

const LOG_PAGE = 30;

const GROUPS: [keyof GitStatus, string][] = [['modified', 'Modified'], ['added', 'Added'], ['deleted', 'Deleted'], ['untracked', 'Untracked']];

export default function GitPanel({ project, visible }: { project: string; visible: boolean }) {
  const [status, setStatus] = useState<GitStatus | null>(null);
  const [branches, setBranches] = useState<Branches | null>(null);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState('');
  const [message, setMessage] = useState('');
  const [diff, setDiff] = useState<DiffState | null>(null);
  const [mode, setMode] = useState<'unified' | 'split'>('unified');
  const [log, setLog] = useState<GitLog | null>(null);
  const [target, setTarget] = useState('');
  const byAgent = useAgentChanged(project);

  async function load() {
    try {
      const [s, b, l] = await Promise.all([
        api<GitStatus>(`/api/git/status?project=${enc(project)}`),
        api<Branches>(`/api/git/branches?project=${enc(project)}`),
        api<GitLog>(`/api/git/log?project=${enc(project)}&limit=${LOG_PAGE}`),
      ]);
      setStatus(s);
      setBranches(b);
      setLog(l);
      setError('');
    } catch (e) {
      setError(describe(e, 'Git status'));
    }
  }

  useEffect(() => {
    if (visible) load();
  }, [project, visible]);
  // the agent changed files: the status is read again (when shown)
  const agentSeen = useRef(byAgent);
  useEffect(() => {
    const grew = [...byAgent].some((p) => !agentSeen.current.has(p));
    agentSeen.current = byAgent;
    if (grew && visible) load();
  }, [byAgent]);
  useEffect(() => {
    const on = () => load();
    window.addEventListener('aw-git-changed', on);
    return () => window.removeEventListener('aw-git-changed', on);
  }, [project]);

  async function run<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    setBusy(what);
    setError('');
    setNote('');
    try {
      return await fn();
    } catch (e) {
      setError(describe(e, what));
      return undefined;
    } finally {
      setBusy('');
    }
  }

  async function stage(files: string[] | undefined, un = false) {
    const s = await run(un ? 'Unstage' : 'Stage', () => api<GitStatus>(`/api/git/${un ? 'unstage' : 'stage'}`, { method: 'POST', body: files ? { project, files } : { project } }));
    if (s) setStatus(s);
    window.dispatchEvent(new CustomEvent('aw-files-changed'));
  }

  async function showDiff(file: string | null, staged: boolean) {
    const q = `project=${enc(project)}${file ? `&file=${enc(file)}` : ''}${staged ? '&staged=true' : ''}`;
    const d = await run('Diff', () => api<{ diff: string; truncated?: boolean }>(`/api/git/diff?${q}`));
    if (d) setDiff({ title: `${staged ? 'Staged' : 'Unstaged'} changes${file ? ' in ' + file : ''}`, text: d.diff, truncated: d.truncated });
  }

  async function commit(e: Event) {
    e.preventDefault();
    if (!message.trim()) return;
    const r = await run('Commit', () => api<{ commit: string; branch?: string }>('/api/git/commit', { method: 'POST', body: { project, message } }));
    if (r) {
      setNote(`Committed ${r.commit.slice(0, 7)} on ${r.branch ?? status?.branch}.`);
      setMessage('');
      setDiff(null);
      load();
      window.dispatchEvent(new CustomEvent('aw-files-changed'));
    }
  }

  async function older() {
    if (!log?.next) return;
    const more = await run('History', () => api<GitLog>(`/api/git/log?project=${enc(project)}&limit=${LOG_PAGE}&cursor=${enc(log.next!)}`));
    if (more) setLog({ commits: [...log.commits, ...more.commits], next: more.next });
  }

  async function remote(kind: 'push' | 'pull') {
    const r = await run(kind === 'push' ? 'Push' : 'Pull', () => api<{ output?: string; outcome?: string }>(`/api/git/${kind}`, { method: 'POST', body: { project } }));
    if (r) {
      setNote(r.output || (kind === 'pull' ? `Pulled: ${r.outcome}` : 'Pushed.'));
      load();
      window.dispatchEvent(new CustomEvent('aw-files-changed'));
    }
  }

  async function checkout() {
    if (!target) return;
    const r = await run('Checkout', () => api<{ branch: string; created?: boolean }>('/api/git/checkout', { method: 'POST', body: { project, branch: target } }));
    if (r) {
      setNote(`Switched to ${r.branch}${r.created ? ' (a new tracking branch)' : ''}.`);
      setTarget('');
      load();
      window.dispatchEvent(new CustomEvent('aw-files-changed'));
    }
  }

  // The file lists are drawn by a memo'd component with stable actions: a change set of thousands of files is not
  // drawn again on every key in the commit message or when "busy" flips around a request.
  const latest = useRef({ showDiff, stage });
  latest.current = { showDiff, stage };
  const act = useMemo<Actions>(() => ({
    diff: (p, s) => latest.current.showDiff(p, s),
    stage: (files, un) => latest.current.stage(files, un),
  }), []);
  const changes = useMemo(() => groups(status), [status]);
  const clean = status && status.staged.length === 0 && changes.every(([, l]) => l.length === 0);

  return (
    <div class="ws-git-panel ws-col">
      <div class="ws-head">
        <h2>Git{status && <> · <span class="git-branch">{status.branch}</span></>}</h2>
        {status && (status.ahead > 0 || status.behind > 0) && <span class="small muted" title="ahead / behind the upstream">↑{status.ahead} ↓{status.behind}</span>}
        <button onClick={() => remote('pull')} disabled={!!busy}>Pull</button>
        <button onClick={() => remote('push')} disabled={!!busy}>Push</button>
        <button aria-label="Refresh git status" onClick={load}>↻</button>
      </div>
      {busy && <p class="muted small ws-msg" role="status">{busy}…</p>}
      {error && <p class="error ws-msg" role="alert">{error}</p>}
      {note && <p class="ws-msg" role="status">{note}</p>}
      <div class="ws-scroll">
        {branches && (
          <div class="row pad-s">
            <label class="small">Branch{' '}
              <select value={target} onChange={(e) => setTarget(e.currentTarget.value)} aria-label="Branch to check out">
                <option value="">{branches.current}</option>
                {branches.local.filter((b) => b !== branches.current).map((b) => <option key={b} value={b}>{b}</option>)}
                {branches.remote.map((b) => <option key={b} value={b}>{b}</option>)}
              </select>
            </label>
            <button disabled={!target || !!busy} onClick={checkout}>Check out</button>
          </div>
        )}
        {clean && <p class="muted pad-s">Nothing to commit: the working tree is clean.</p>}
        {status && <StatusLists status={status} act={act} byAgent={byAgent} />}
        {status && changes.some(([, l]) => l.length > 0) && (
          <div class="row pad-s"><button class="small" onClick={() => showDiff(null, false)}>All changes</button><button class="small" onClick={() => stage(undefined)}>Stage all</button></div>
        )}
        <form class="git-commit" onSubmit={commit}>
          <label class="small" for="aw-commit-msg">Commit message</label>
          <textarea id="aw-commit-msg" value={message} onInput={(e) => setMessage(e.currentTarget.value)} placeholder="What changed and why" />
          <div class="row"><button class="primary" type="submit" disabled={!message.trim() || !!busy}>Commit staged</button></div>
        </form>
        {log && (
          <div class="git-group">
            <h3>History</h3>
            {log.commits.length === 0 ? <p class="muted pad-s">No commits yet.</p> : (
              <ul class="git-log" aria-label="History">
                {log.commits.map((c) => (
                  <li key={c.hash} title={`${c.hash}\n${c.author} <${c.authorEmail}>`}>
                    <code>{c.shortHash}</code> {c.subject} <span class="muted small">{c.author}, <time dateTime={c.date}>{new Date(c.date).toLocaleString()}</time></span>
                  </li>
                ))}
              </ul>
            )}
            {log.next && <div class="row pad-s"><button class="small" onClick={older} disabled={!!busy}>Older commits</button></div>}
          </div>
        )}
        {diff && (
          <section class="git-diff" aria-label="Diff">
            <div class="ws-head">
              <h2>{diff.title}</h2>
              <button aria-pressed={mode === 'split'} onClick={() => setMode(mode === 'split' ? 'unified' : 'split')}>{mode === 'split' ? 'Unified' : 'Side by side'}</button>
              <button aria-label="Close the diff" onClick={() => setDiff(null)}>✕</button>
            </div>
            <DiffView text={diff.text} truncated={diff.truncated} mode={mode} />
          </section>
        )}
      </div>
    </div>
  );
}

interface Actions {
  diff: (file: string | null, staged: boolean) => void;
  stage: (files: string[] | undefined, un?: boolean) => void;
}

function groups(status: GitStatus | null) {
  const staged = new Set(status?.staged ?? []);
  return status ? GROUPS.map(([k, title]) => [title, (status[k] as string[]).filter((p) => !staged.has(p))] as const) : [];
}

/** The mark of a file the agent changed in the chat session shown now (agentchanged.ts). */
function AgentMark({ path, byAgent }: { path: string; byAgent: ReadonlySet<string> }) {
  return byAgent.has(path) ? <span class="agent-chg" title="Changed by the agent in this chat session" aria-label="changed by the agent">✦</span> : null;
}

const StatusLists = memo(function StatusLists({ status, act, byAgent }: { status: GitStatus; act: Actions; byAgent: ReadonlySet<string> }) {
  const changes = useMemo(() => groups(status), [status]);
  return (
    <>
        {status && status.staged.length > 0 && (
          <div class="git-group">
            <h3>Staged</h3>
            <ul aria-label="Staged">
              {status.staged.map((p) => (
                <li key={p} class="git-file">
                  <button class="path" title={`Staged diff of ${p}`} onClick={() => act.diff(p, true)}>{p}</button>
                  <AgentMark path={p} byAgent={byAgent} />
                  <button class="small" aria-label={`Unstage ${p}`} onClick={() => act.stage([p], true)}>Unstage</button>
                </li>
              ))}
            </ul>
            <div class="row pad-s"><button class="small" onClick={() => act.diff(null, true)}>Staged diff</button><button class="small" onClick={() => act.stage(undefined, true)}>Unstage all</button></div>
          </div>
        )}
        {changes.map(([title, list]) => list.length > 0 && (
          <div class="git-group" key={title}>
            <h3>{title}</h3>
            <ul aria-label={title}>
              {list.map((p) => (
                <li key={p} class="git-file">
                  <button class="path" title={`Diff of ${p}`} onClick={() => act.diff(p, false)}>{p}</button>
                  <AgentMark path={p} byAgent={byAgent} />
                  <button class="small" aria-label={`Stage ${p}`} onClick={() => act.stage([p])}>Stage</button>
                </li>
              ))}
            </ul>
          </div>
        ))}
    </>
  );
});
