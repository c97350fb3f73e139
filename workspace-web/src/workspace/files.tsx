// The files panel: the project's tree, loaded folder by folder (a folder's entries are fetched when it is opened,
// so a tree of any size never loads at once), create / rename / delete, and the editor.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api';
import { Modal, PromptDialog } from '../ui';
import type { EditorView } from '@codemirror/view';
import { holdsAny, useAgentChanged } from './agentchanged';

export interface FileEntry { name: string; path: string; type: 'file' | 'directory'; size: number | null }
interface FileContent { path?: string; content: string; encoding: 'utf-8' | 'base64'; size?: number }
type Dir = { entries?: FileEntry[]; error?: string };

/** Text larger than this is opened only on request. */
export const OPEN_ANYWAY_BYTES = 4 * 1024 * 1024;
const IMAGE: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon' };

export function humanSize(n: number) {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

/** The words shown for a failed call: the envelope's message, with the size limit explained. */
export function describe(e: unknown, doing: string): string {
  if (e instanceof ApiError) {
    if (e.status === 413) return `${doing}: the file is over the server's size limit. ${e.message}`;
    return `${doing}: ${e.message}`;
  }
  return `${doing}: ${(e as Error).message}`;
}

const parentOf = (p: string) => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');

export default function FilesPanel({ project, openRequest }: { project: string; openRequest: { path: string; n: number } | null }) {
  const [dirs, setDirs] = useState<Map<string, Dir>>(new Map());
  const [expanded, setExpanded] = useState<Set<string>>(new Set(['']));
  const [selected, setSelected] = useState<FileEntry | null>(null);
  const [openPath, setOpenPath] = useState<string | null>(null);
  const [changed, setChanged] = useState<Set<string>>(new Set());
  const [dialog, setDialog] = useState<null | 'file' | 'directory' | 'rename' | 'delete'>(null);
  const [error, setError] = useState('');
  const base = `/api/projects/${enc(project)}`;
  const byAgent = useAgentChanged(project);

  async function loadDir(path: string) {
    try {
      let entries = await api<FileEntry[]>(`${base}/files?path=${enc(path)}`);
      if (path === '') entries = entries.filter((e) => e.name !== '.git'); // git's own store is not for editing
      setDirs((d) => new Map(d).set(path, { entries }));
    } catch (e) {
      setDirs((d) => new Map(d).set(path, { error: describe(e, 'Could not list this folder') }));
    }
  }

  async function loadChanged() {
    try {
      const s = await api<Record<string, unknown>>(`/api/git/status?project=${enc(project)}`);
      const all = ['modified', 'added', 'untracked', 'staged'].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as string[]) : []));
      setChanged(new Set(all));
    } catch {
      setChanged(new Set()); // not a git repository: nothing to mark
    }
  }

  function refresh() {
    [...expanded].forEach(loadDir);
    loadChanged();
  }

  useEffect(() => {
    loadDir('');
    loadChanged();
    const on = () => loadChanged();
    window.addEventListener('aw-files-changed', on);
    return () => window.removeEventListener('aw-files-changed', on);
  }, [project]);

  // a file the agent just wrote may be new: its folder is listed again (when shown), and git's marks read again
  const seenByAgent = useRef<ReadonlySet<string>>(new Set());
  useEffect(() => {
    const fresh = [...byAgent].filter((p) => !seenByAgent.current.has(p));
    seenByAgent.current = byAgent;
    if (fresh.length === 0) return;
    new Set(fresh.map(parentOf)).forEach((dir) => {
      if (dirs.has(dir) && expanded.has(dir)) loadDir(dir);
    });
    loadChanged();
  }, [byAgent]);

  useEffect(() => {
    if (!openRequest) return;
    const p = openRequest.path.replace(/^\.\//, '');
    setOpenPath(p);
    // open the folders down to it
    const parts = p.split('/');
    const chain = parts.slice(0, -1).map((_, i) => parts.slice(0, i + 1).join('/'));
    setExpanded((x) => new Set([...x, ...chain]));
    chain.forEach(loadDir);
  }, [openRequest?.n]);

  function toggleDir(path: string) {
    setExpanded((x) => {
      const n = new Set(x);
      if (n.has(path)) n.delete(path);
      else {
        n.add(path);
        if (!dirs.has(path)) loadDir(path);
      }
      return n;
    });
  }

  const folderOfSelection = selected ? (selected.type === 'directory' ? selected.path : parentOf(selected.path)) : '';

  function renderDir(path: string, depth: number) {
    const d = dirs.get(path);
    if (!d) return <p class="muted small pad-s">Loading…</p>;
    if (d.error) return <p class="error small pad-s" role="alert">{d.error}</p>;
    if (d.entries!.length === 0) return depth === 0 ? <p class="muted small pad-s">This folder is empty.</p> : null;
    return (
      <ul role={depth === 0 ? 'tree' : 'group'} aria-label={depth === 0 ? 'Project files' : undefined}>
        {d.entries!.map((e) => {
          const isDir = e.type === 'directory';
          const open = expanded.has(e.path);
          return (
            <li key={e.path} role="treeitem" aria-expanded={isDir ? open : undefined} aria-selected={selected?.path === e.path}>
              <button
                class={`tree-item${selected?.path === e.path ? ' sel' : ''}`}
                style={{ paddingLeft: 6 + depth * 14 + 'px' }}
                title={e.path}
                onClick={() => {
                  setSelected(e);
                  if (isDir) toggleDir(e.path);
                  else setOpenPath(e.path);
                }}
              >
                <span aria-hidden="true">{isDir ? (open ? '▾' : '▸') : ' '}</span>
                <span class="name">{e.name}</span>
                {(isDir ? holdsAny(e.path, byAgent) : byAgent.has(e.path)) && (
                  <span class="agent-chg" title={isDir ? 'Holds files the agent changed in this chat session' : 'Changed by the agent in this chat session'} aria-label="changed by the agent">✦</span>
                )}
                {!isDir && changed.has(e.path) && <span class="chg" title="Changed (git status)" aria-label="changed">●</span>}
              </button>
              {isDir && open && renderDir(e.path, depth + 1)}
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    <div class="ws-files-panel ws-col">
      <div class="ws-head">
        <h2>Files</h2>
        <button onClick={() => setDialog('file')}>New file</button>
        <button onClick={() => setDialog('directory')}>New folder</button>
        <button disabled={!selected} onClick={() => setDialog('rename')}>Rename</button>
        <button disabled={!selected} onClick={() => setDialog('delete')}>Delete</button>
        <button aria-label="Refresh files" onClick={refresh}>↻</button>
      </div>
      {error && <p class="error ws-msg" role="alert">{error}</p>}
      <div class={`files${openPath ? ' editing' : ''}`}>
        <nav class="tree" aria-label="File tree">{renderDir('', 0)}</nav>
        {openPath && (
          <EditorPane
            key={openPath}
            project={project}
            path={openPath}
            onClose={() => setOpenPath(null)}
            onSaved={() => {
              loadChanged();
              loadDir(parentOf(openPath));
              window.dispatchEvent(new CustomEvent('aw-git-changed'));
            }}
          />
        )}
      </div>
      {(dialog === 'file' || dialog === 'directory') && (
        <PromptDialog
          title={dialog === 'file' ? 'New file' : 'New folder'}
          label={`Name (in ${folderOfSelection || 'the project folder'})`}
          initial=""
          onClose={() => setDialog(null)}
          onSubmit={async (name) => {
            const path = folderOfSelection ? `${folderOfSelection}/${name}` : name;
            try {
              await api(`${base}/files/create`, { method: 'POST', body: { path, type: dialog } });
            } catch (e) {
              throw new Error(describe(e, 'Could not create it'));
            }
            if (folderOfSelection) setExpanded((x) => new Set([...x, folderOfSelection]));
            await loadDir(folderOfSelection);
            if (dialog === 'file') setOpenPath(path);
            loadChanged();
          }}
        />
      )}
      {dialog === 'rename' && selected && (
        <PromptDialog
          title={`Rename ${selected.name}`}
          label="New path (from the project folder)"
          initial={selected.path}
          onClose={() => setDialog(null)}
          onSubmit={async (newPath) => {
            try {
              await api(`${base}/files/rename`, { method: 'PUT', body: { oldPath: selected.path, newPath } });
            } catch (e) {
              throw new Error(describe(e, 'Could not rename it'));
            }
            if (openPath === selected.path) setOpenPath(newPath);
            setSelected(null);
            await Promise.all([loadDir(parentOf(selected.path)), loadDir(parentOf(newPath))]);
            loadChanged();
          }}
        />
      )}
      {dialog === 'delete' && selected && (
        <Modal title={`Delete ${selected.name}?`} onClose={() => setDialog(null)}>
          <p>{selected.type === 'directory' ? `The folder ${selected.path} and everything in it will be deleted.` : `The file ${selected.path} will be deleted.`} This cannot be undone.</p>
          <div class="row end">
            <button onClick={() => setDialog(null)}>Cancel</button>
            <button
              class="primary"
              onClick={async () => {
                try {
                  await api(`${base}/files`, { method: 'DELETE', body: { path: selected.path, type: selected.type } });
                  if (openPath && (openPath === selected.path || openPath.startsWith(selected.path + '/'))) setOpenPath(null);
                  setError('');
                } catch (e) {
                  setError(describe(e, 'Could not delete it'));
                }
                setDialog(null);
                setSelected(null);
                loadDir(parentOf(selected.path));
                loadChanged();
              }}
            >
              Delete
            </button>
          </div>
        </Modal>
      )}
    </div>
  );
}

type Loaded =
  | { kind: 'loading' }
  | { kind: 'error'; message: string }
  | { kind: 'text'; content: string }
  | { kind: 'large'; content: string }
  | { kind: 'image'; url: string; size: number }
  | { kind: 'binary'; size: number };

function EditorPane({ project, path, onClose, onSaved }: { project: string; path: string; onClose: () => void; onSaved: () => void }) {
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [dirty, setDirty] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [conflict, setConflict] = useState(false);
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const ed = useRef<typeof import('./editor') | null>(null);
  /** What the file held when it was opened or last saved: a save compares the disk with it first. */
  const baseText = useRef('');
  const saving = useRef(false);
  const url = `/api/projects/${enc(project)}/file`;

  async function load() {
    setLoaded({ kind: 'loading' });
    try {
      const f = await api<FileContent>(`${url}?path=${enc(path)}`);
      if (f.encoding === 'base64') {
        const size = Math.floor((f.content.length * 3) / 4);
        const mime = IMAGE[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
        setLoaded(mime ? { kind: 'image', url: `data:${mime};base64,${f.content}`, size } : { kind: 'binary', size });
      } else {
        baseText.current = f.content;
        setLoaded({ kind: f.content.length > OPEN_ANYWAY_BYTES ? 'large' : 'text', content: f.content });
      }
    } catch (e) {
      setLoaded({ kind: 'error', message: describe(e, 'Could not open the file') });
    }
  }

  useEffect(() => {
    load();
    return () => view.current?.destroy();
  }, []);

  useEffect(() => {
    if (loaded.kind !== 'text' || !host.current) return;
    let gone = false;
    import('./editor').then((m) => {
      if (gone || !host.current) return;
      ed.current = m;
      view.current?.destroy();
      view.current = m.createEditor(host.current, loaded.content, path, { onSave: () => save(false), onChange: () => setDirty(true) });
      setDirty(false);
      host.current.dataset.ready = 'true';
    }).catch(() => setError('The editor could not be loaded. Reload the page.'));
    return () => {
      gone = true;
    };
  }, [loaded]);

  async function save(force: boolean) {
    const v = view.current;
    if (!v || !ed.current || saving.current) return;
    saving.current = true;
    setError('');
    setStatus('Saving…');
    const content = ed.current.text(v);
    try {
      if (!force) {
        let onDisk: string | null = null;
        try {
          const f = await api<FileContent>(`${url}?path=${enc(path)}`);
          onDisk = f.encoding === 'utf-8' ? f.content : null;
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 'FILE_NOT_FOUND')) throw e;
          onDisk = baseText.current; // deleted meanwhile: saving recreates it
        }
        if (onDisk !== baseText.current) {
          setConflict(true);
          setStatus('');
          return;
        }
      }
      await api(url, { method: 'PUT', body: { path, content } });
      baseText.current = content;
      setConflict(false);
      setDirty(false);
      setStatus(`Saved ${new Date().toLocaleTimeString()}`);
      onSaved();
    } catch (e) {
      setStatus('');
      setError(describe(e, 'Could not save'));
    } finally {
      saving.current = false;
    }
  }

  return (
    <div class="editor-pane" onKeyDown={(e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        save(false);
      }
    }}>
      <div class="ws-head">
        <h2 title={path}>{path}{dirty ? ' •' : ''}</h2>
        <span class="muted small" role="status">{status}</span>
        {loaded.kind === 'text' && <button class="primary" onClick={() => save(false)} title="Save (Ctrl+S)">Save</button>}
        <button aria-label="Close the file" onClick={() => {
          if (!dirty || window.confirm('Discard the unsaved changes?')) onClose();
        }}>✕</button>
      </div>
      {conflict && (
        <div class="notice ws-msg" role="alert">
          <p>{path} changed on disk since you opened it. Saving now replaces those changes.</p>
          <div class="row">
            <button onClick={() => save(true)}>Overwrite</button>
            <button onClick={() => { setConflict(false); load(); }}>Reload from disk (drops your edits)</button>
            <button onClick={() => setConflict(false)}>Keep editing</button>
          </div>
        </div>
      )}
      {error && <p class="error ws-msg" role="alert">{error}</p>}
      {loaded.kind === 'loading' && <p class="pad muted">Opening…</p>}
      {loaded.kind === 'error' && <p class="pad error" role="alert">{loaded.message}</p>}
      {loaded.kind === 'binary' && <p class="pad">A binary file ({humanSize(loaded.size)}): it is not opened as text.</p>}
      {loaded.kind === 'image' && (
        <div class="ws-scroll">
          <p class="muted small pad-s">Image, {humanSize(loaded.size)}</p>
          <img class="preview-img" src={loaded.url} alt={`Preview of ${path}`} />
        </div>
      )}
      {loaded.kind === 'large' && (
        <div class="pad">
          <p>This file is large ({humanSize(loaded.content.length)}); editing it may be slow.</p>
          <button onClick={() => setLoaded({ kind: 'text', content: loaded.content })}>Open anyway</button>
        </div>
      )}
      <div class="editor-host" ref={host} hidden={loaded.kind !== 'text'} />
    </div>
  );
}
