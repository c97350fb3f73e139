import { useEffect, useRef, useState } from 'preact/hooks';
import { api, isAdmin, type BrowseListing, type Project, type SessionMeta, type User } from './api';
import { pickerFailed, pickerInitial, pickerListed, pickerRequest, pickerTyped, type PickerState } from './picker';
import { navigate, sessionPath, type Route } from './router';
import { projects, useProjects } from './store';
import { Modal, PromptDialog, relativeTime } from './ui';

const PAGE = 20;

export function Sidebar({ user, route }: { user: User; route: Route }) {
  const store = useProjects();
  const [adding, setAdding] = useState(false);
  const [filter, setFilter] = useState('');

  useEffect(() => {
    if (!store.list) store.load();
  }, []);

  const current = route.name === 'session' || route.name === 'project' || route.name === 'new-chat' ? route.project : null;
  const list = (store.list ?? []).filter((p) => !filter || p.displayName.toLowerCase().includes(filter.toLowerCase()) || p.path.toLowerCase().includes(filter.toLowerCase()));

  return (
    <nav class="sidebar" aria-label="Projects">
      <div class="sidebar-head">
        <input class="filter" type="search" placeholder="Filter projects" aria-label="Filter projects" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        <button onClick={() => setAdding(true)} title="Add a project folder">+ Project</button>
      </div>
      {store.error && <p class="error pad-s" role="alert">{store.error} <button class="link" onClick={() => store.load()}>Retry</button></p>}
      {!store.list && !store.error && <p class="muted pad-s">Loading projects…</p>}
      {store.list && store.list.length === 0 && <p class="muted pad-s">No projects yet. Add a folder, or run a CLI in one.</p>}
      <ul class="projects" data-testid="projects">
        {list.map((p) => (
          <ProjectEntry key={p.name} project={p} open={p.name === current} route={route} />
        ))}
      </ul>
      {adding && <AddProject admin={isAdmin(user)} onClose={() => setAdding(false)} />}
    </nav>
  );
}

function ProjectEntry({ project, open, route }: { project: Project; open: boolean; route: Route }) {
  const [expanded, setExpanded] = useState(open);
  const [shown, setShown] = useState(10);
  const [renaming, setRenaming] = useState(false);
  const [renamingSession, setRenamingSession] = useState<SessionMeta | null>(null);
  const [provider, setProvider] = useState('');
  const full = projects.sessions.get(project.name);
  const sessions = (full ?? project.sessions).filter((s) => !provider || s.provider === provider);
  const providers = [...new Set((full ?? project.sessions).map((s) => s.provider))];
  const activeSession = route.name === 'session' ? route.sessionId : null;

  useEffect(() => {
    if (open) setExpanded(true);
  }, [open]);

  async function more() {
    if (!full) await projects.loadSessions(project.name);
    setShown((n) => n + PAGE);
  }

  async function remove() {
    if (!confirm(`Remove "${project.displayName}" from the list? Files and CLI history stay on disk.`)) return;
    try {
      await api(`/api/projects/${encodeURIComponent(project.name)}`, { method: 'DELETE' });
      await projects.load();
      if (open) navigate('/');
    } catch (e) {
      alert((e as Error).message);
    }
  }

  async function removeSession(s: SessionMeta) {
    if (!confirm(`Delete the session "${s.title ?? s.id}"? Its CLI history file is deleted.`)) return;
    try {
      await api(`/api/projects/${encodeURIComponent(project.name)}/sessions/${encodeURIComponent(s.id)}?provider=${encodeURIComponent(s.provider)}`, { method: 'DELETE' });
      projects.sessions.delete(project.name);
      await projects.load();
      if (activeSession === s.id) navigate(`/projects/${encodeURIComponent(project.name)}`);
    } catch (e) {
      alert((e as Error).message);
    }
  }

  return (
    <li class={`project${open ? ' current' : ''}`}>
      <div class="project-row">
        <button class="project-name" aria-expanded={expanded} onClick={() => setExpanded(!expanded)} title={project.path}>
          <span class="caret" aria-hidden="true">{expanded ? '▾' : '▸'}</span>
          <span class="name">{project.displayName}</span>
          <span class="count">{project.sessionCount}</span>
        </button>
        <button class="icon small" title="New chat" aria-label={`New chat in ${project.displayName}`} onClick={() => navigate(`/projects/${encodeURIComponent(project.name)}/new`)}>+</button>
        <details class="menu">
          <summary class="icon small" aria-label={`Actions for ${project.displayName}`}>⋯</summary>
          <div class="menu-pop">
            <button onClick={() => setRenaming(true)}>Rename</button>
            <button class="danger" onClick={remove}>Remove</button>
          </div>
        </details>
      </div>
      {expanded && (
        <div class="sessions">
          {providers.length > 1 && (
            <div class="chips" role="group" aria-label="Provider">
              <button class={provider === '' ? 'chip on' : 'chip'} onClick={() => setProvider('')}>all</button>
              {providers.map((p) => (
                <button key={p} class={provider === p ? 'chip on' : 'chip'} onClick={() => setProvider(p)}>{p}</button>
              ))}
            </div>
          )}
          <ul>
            {sessions.slice(0, shown).map((s) => (
              <li key={s.provider + s.id} class={s.id === activeSession ? 'session active' : 'session'}>
                <a href={sessionPath(project.name, s.id, s.provider)} onClick={(e) => { e.preventDefault(); navigate(sessionPath(project.name, s.id, s.provider)); }} aria-current={s.id === activeSession ? 'page' : undefined}>
                  <span class={`badge p-${s.provider}`}>{s.provider}</span>
                  <span class="title">{s.title ?? s.id}</span>
                  <span class="when">{relativeTime(s.lastActivity)}</span>
                </a>
                <details class="menu">
                  <summary class="icon small" aria-label={`Actions for session ${s.title ?? s.id}`}>⋯</summary>
                  <div class="menu-pop">
                    <button onClick={() => setRenamingSession(s)}>Rename</button>
                    <button class="danger" onClick={() => removeSession(s)}>Delete</button>
                  </div>
                </details>
              </li>
            ))}
          </ul>
          {(sessions.length > shown || (!full && project.sessionCount > project.sessions.length)) && (
            <button class="link more" onClick={more}>Show more sessions</button>
          )}
        </div>
      )}
      {renaming && (
        <PromptDialog title="Rename project" label="Display name" initial={project.displayName} onClose={() => setRenaming(false)}
          onSubmit={async (v) => {
            await api(`/api/projects/${encodeURIComponent(project.name)}/rename`, { method: 'PUT', body: { displayName: v } });
            await projects.load();
          }} />
      )}
      {renamingSession && (
        <PromptDialog title="Rename session" label="Title" initial={renamingSession.title ?? ''} onClose={() => setRenamingSession(null)}
          onSubmit={async (v) => {
            await api(`/api/sessions/${encodeURIComponent(renamingSession.id)}/rename`, { method: 'PUT', body: { title: v, provider: renamingSession.provider } });
            projects.sessions.delete(project.name);
            await projects.load();
          }} />
      )}
    </li>
  );
}

function AddProject({ admin, onClose }: { admin: boolean; onClose: () => void }) {
  // the picker's state lives in a ref (listings resolve after awaits, and must see the newest state); a render is
  // asked for after each change. picker.ts: a late or stale listing never overwrites what the user typed.
  const state = useRef<PickerState>(pickerInitial(admin));
  const [, rerender] = useState(0);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const update = (next: PickerState) => {
    state.current = next;
    rerender((n) => n + 1);
  };
  const { path, listing, ready } = state.current;
  const field = useRef<HTMLInputElement>(null);
  // the dialog could not focus the field while it was disabled: focus it once the first listing is in
  useEffect(() => {
    if (ready) field.current?.focus();
  }, [ready]);

  async function browse(p?: string) {
    setError('');
    const [next, n] = pickerRequest(state.current);
    update(next);
    try {
      const l = await api<BrowseListing>(`/api/browse-filesystem${p ? '?path=' + encodeURIComponent(p) : ''}`);
      update(pickerListed(state.current, n, l));
    } catch (e) {
      update(pickerFailed(state.current, n));
      setError((e as Error).message);
    }
  }

  useEffect(() => {
    if (admin) browse();
  }, []);

  async function add(e: Event) {
    e.preventDefault();
    if (busy || !path.trim()) return;
    setBusy(true);
    setError('');
    try {
      const p = await api<Project>('/api/projects/quick-start', { method: 'POST', body: { path: path.trim() } });
      await projects.load();
      onClose();
      navigate(`/projects/${encodeURIComponent(p.name)}/new`);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Modal title="Add a project" onClose={onClose} wide>
      <form class="stack" onSubmit={add}>
        <label>Folder (absolute path; created when missing)
          <input ref={field} name="path" value={path} disabled={!ready} onInput={(e) => update(pickerTyped(state.current, e.currentTarget.value))}
            placeholder={ready ? '/home/me/project' : 'Loading folders…'} spellcheck={false} />
        </label>
        {admin && listing && (
          <div class="picker" role="listbox" aria-label="Folders">
            {listing.parent && <button type="button" class="entry" onClick={() => browse(listing.parent!)}>⬑ ..</button>}
            {listing.entries.filter((e) => e.type === 'directory').map((e) => (
              <button type="button" class="entry" key={e.name} onClick={() => browse(listing.path.replace(/\/$/, '') + '/' + e.name)}>📁 {e.name}</button>
            ))}
            {listing.entries.length === 0 && <p class="muted">No sub-folders.</p>}
          </div>
        )}
        {!admin && <p class="muted">Only an administrator can browse the host's folders; type the path instead.</p>}
        {error && <p class="error" role="alert">{error}</p>}
        <div class="row end"><button type="button" onClick={onClose}>Cancel</button><button class="primary" type="submit" disabled={busy}>Add project</button></div>
      </form>
    </Modal>
  );
}
