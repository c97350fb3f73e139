// Providers: one card per provider, and one page per provider with its install (live from the job's SSE stream,
// resumed after a reload, cancellable), its credential (only the masked tail is ever shown), the oauth-paste flow,
// the model list, config files and MCP servers.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, enc } from '../api';
import { PROVIDERS } from '../ui';
import { ErrorText, followSse, Link, useAction, useResource } from './common';
import { errorLine, installJobFromConflict, loadStatuses, NAMES, providerReady, type ProviderInfo } from './logic';

interface Level { hasCredential?: boolean; masked?: string | null; baseUrl?: string | null; updatedAt?: string | null }
interface InventoryEntry extends Level { effectiveSource: string; own: Level; service: Level }
interface InstallJob { jobId: string; provider: string; status: string; version?: string | null; error?: { code: string; message: string } | null; requested?: string }
interface Model { id: string; name: string; contextWindow?: number | null; source?: string }
interface ConfigFile { fileId: string; path: string; label: string; exists: boolean; size: number | null; format?: string; readOnly?: boolean }
interface McpServer { name: string; scope: string; transport?: string; command?: string; args?: string[]; url?: string; env?: Record<string, string> }

export default function ProvidersPage({ sub, admin }: { sub?: string; admin: boolean }) {
  if (sub && (PROVIDERS as readonly string[]).includes(sub)) return <ProviderDetail key={sub} id={sub} admin={admin} />;
  return <ProviderList admin={admin} />;
}

function StatusBadges({ info }: { info: ProviderInfo }) {
  return (
    <span class="row">
      <span class={`state ${info.installed ? 'ok' : 'bad'}`}>{info.installed ? `installed${info.version ? ' ' + info.version : ''}` : 'not installed'}</span>
      <span class={`state ${info.authenticated ? 'ok' : 'bad'}`}>{info.authenticated ? `signed in (${sourceText(info.effectiveSource ?? info.authMethod ?? '')})` : 'no credential'}</span>
    </span>
  );
}

function sourceText(s: string) {
  switch (s) {
    case 'own': return 'your key';
    case 'service': return 'service key';
    case 'cli-login': return "CLI's own login";
    case 'stored-key': return 'stored key';
    default: return s || 'unknown';
  }
}

function ProviderList({ admin }: { admin: boolean }) {
  const [list, setList] = useState<ProviderInfo[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => { loadStatuses().then(setList, (e) => setError(e.message)); }, []);
  return (
    <div class="stack">
      <p class="muted">Each provider is a coding-agent CLI the service runs. {admin ? 'Install one, then save a key for it.' : 'An administrator installs them; you can save your own key.'}</p>
      <ErrorText message={error} />
      {list && !list.some(providerReady) && <p class="warn">No provider is ready yet: install one and give it a key. The start page has a guide.</p>}
      <div class="grid-cards">
        {(list ?? []).map((p) => (
          <Link key={p.id} href={`/settings/providers/${p.id}`} class="panel">
            <strong>{NAMES[p.id] ?? p.id}</strong>
            <StatusBadges info={p} />
          </Link>
        ))}
      </div>
    </div>
  );
}

function ProviderDetail({ id, admin }: { id: string; admin: boolean }) {
  const status = useResource<ProviderInfo>(`/api/providers/${id}/auth/status`);
  const inventory = useResource<Record<string, InventoryEntry>>('/api/providers/credentials');
  const refresh = () => { status.reload(); inventory.reload(); };
  const info = status.data;
  return (
    <div class="stack">
      <p><Link href="/settings/providers">← All providers</Link></p>
      <h2>{NAMES[id] ?? id}</h2>
      <ErrorText message={status.error} />
      {info && (
        <div class="panel stack" role="region" aria-label="Status">
          <StatusBadges info={info} />
          <dl class="small">
            <dt>Binary</dt><dd><code>{info.binaryPath ?? '—'}</code></dd>
            {info.authSource && <><dt>Credential found at</dt><dd><code>{info.authSource}</code></dd></>}
          </dl>
        </div>
      )}
      {admin && <Install id={id} installed={!!info?.installed} onFinished={refresh} />}
      <Credential id={id} admin={admin} entry={inventory.data?.[id] ?? null} onChanged={refresh} />
      <OAuthPaste id={id} admin={admin} onChanged={refresh} />
      <Models id={id} />
      {admin && <ConfigFiles id={id} />}
      {admin && id !== 'grok' && <McpServers id={id} />}
    </div>
  );
}

const jobKey = (id: string) => `aw.install.${id}`;

function Install({ id, installed, onFinished }: { id: string; installed: boolean; onFinished: () => void }) {
  const [job, setJob] = useState<InstallJob | null>(null);
  const [lines, setLines] = useState<string[]>([]);
  const [following, setFollowing] = useState(false);
  const [version, setVersion] = useState('');
  const act = useAction();
  const closer = useRef<(() => void) | null>(null);
  const logRef = useRef<HTMLPreElement>(null);

  function follow(jobId: string, attempt = 0) {
    closer.current?.();
    // the job id is no secret: kept for this tab so a reload resumes following the job
    sessionStorage.setItem(jobKey(id), jobId);
    if (attempt === 0) setLines([]);
    setFollowing(true);
    let got = 0;
    closer.current = followSse(`/api/providers/${id}/install/${enc(jobId)}/stream`, {
      log: (d) => { got++; setLines((l) => [...l.slice(-1999), d?.text ?? String(d)]); },
      status: (d) => { got++; setJob(d); },
      done: (d) => setJob(d),
      error: (d) => setJob((j) => ({ ...(j ?? { jobId, provider: id }), status: 'failed', error: d?.error ?? d })),
    }, (finished, events) => {
      if (!finished && attempt < 5) {
        // refused or dropped before the end (the previous page's stream may still count against the limit right
        // after a reload): follow again; the replay starts from the first line
        setTimeout(() => { setLines([]); follow(jobId, attempt + 1); }, 1000 * (attempt + 1));
        return;
      }
      setFollowing(false);
      // a finished job, or one the server no longer gives (nothing came): nothing to resume
      if (finished || events === 0) sessionStorage.removeItem(jobKey(id));
      if (!finished && got === 0) setJob(null);
      onFinished();
    });
  }

  useEffect(() => {
    const saved = sessionStorage.getItem(jobKey(id));
    if (saved) {
      setJob({ jobId: saved, provider: id, status: 'running' });
      follow(saved);
    }
    return () => closer.current?.();
  }, []);

  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [lines.length]);

  async function start() {
    await act.run(async () => {
      try {
        const j = await api<InstallJob>(`/api/providers/${id}/install`, { method: 'POST', body: version.trim() ? { version: version.trim() } : {} });
        setJob(j);
        follow(j.jobId);
      } catch (e) {
        const running = e instanceof ApiError ? installJobFromConflict(e.code, e.message) : null;
        if (!running) throw e;
        setJob({ jobId: running, provider: id, status: 'running' });
        follow(running); // a job of this provider is running already: follow it
      }
    });
  }

  async function cancel() {
    if (!job) return;
    await act.run(async () => setJob(await api<InstallJob>(`/api/providers/${id}/install/${enc(job.jobId)}`, { method: 'DELETE' })));
  }

  const active = following || job?.status === 'pending' || job?.status === 'running';
  return (
    <div class="panel stack" role="region" aria-label="Install">
      <h3>{installed ? 'Update' : 'Install'}</h3>
      <p class="muted small">Installs the CLI from npm into the service's own folder (no global install). Leave the version empty for the tested one, or give a version or <code>latest</code>.</p>
      <div class="row">
        <label>Version <input value={version} onInput={(e) => setVersion(e.currentTarget.value)} placeholder="tested version" maxLength={64} /></label>
        {!active && <button class="primary" onClick={start} disabled={act.busy}>{installed ? 'Update' : 'Install'}</button>}
        {active && <button class="danger" onClick={cancel} disabled={act.busy}>Cancel install</button>}
      </div>
      {job && (
        <p role="status" class="install-status">
          Install {job.status}{job.status === 'succeeded' && job.version ? ` — version ${job.version}` : ''}
          {active ? ` · ${lines.length} lines` : ''}
          {job.error ? ` — ${job.error.message}` : ''}
        </p>
      )}
      {active && <progress aria-label="Install progress" />}
      {lines.length > 0 && <pre class="log" tabIndex={0} ref={logRef} aria-label="Install log">{lines.join('\n')}</pre>}
      <ErrorText message={act.error} />
    </div>
  );
}

function Credential({ id, admin, entry, onChanged }: { id: string; admin: boolean; entry: InventoryEntry | null; onChanged: () => void }) {
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [shared, setShared] = useState(false);
  const [saved, setSaved] = useState('');
  const act = useAction();
  async function save(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = { apiKey: key };
    if (baseUrl.trim()) body.baseUrl = baseUrl.trim();
    if (shared) body.shared = true;
    const r = await act.run(() => api<{ masked: string | null }>(`/api/providers/${id}/auth/api-key`, { method: 'POST', body }));
    if (r) {
      setKey('');
      setSaved(`Saved ${shared ? 'the service-wide key' : 'your key'} ${r.masked ?? ''}.`);
      onChanged();
    }
  }
  async function clear(sharedLevel: boolean) {
    const r = await act.run(() => api(`/api/providers/${id}/auth/api-key${sharedLevel ? '?shared=true' : ''}`, { method: 'DELETE' }));
    if (r) {
      setSaved(sharedLevel ? 'The service-wide key was removed.' : 'Your key was removed.');
      onChanged();
    }
  }
  return (
    <form class="panel stack" aria-label="API key" onSubmit={save}>
      <h3>API key</h3>
      {entry && (
        <ul class="small">
          <li>Your key: {entry.own?.hasCredential ? <code>{entry.own.masked}</code> : 'none'}{entry.own?.baseUrl ? <> at <code>{entry.own.baseUrl}</code></> : ''}
            {entry.own?.hasCredential && <button type="button" class="link" onClick={() => clear(false)}>Clear</button>}</li>
          <li>Service-wide key: {entry.service?.hasCredential ? <code>{entry.service.masked}</code> : 'none'}{entry.service?.baseUrl ? <> at <code>{entry.service.baseUrl}</code></> : ''}
            {admin && entry.service?.hasCredential && <button type="button" class="link" onClick={() => clear(true)}>Clear</button>}</li>
          <li>Your runs use: <strong>{entry.effectiveSource === 'none' ? "the CLI's own login, if it has one" : sourceText(entry.effectiveSource)}</strong></li>
        </ul>
      )}
      <p class="muted small">The key is stored sealed and handed only to this provider's CLI; it is never shown again, only its last characters.</p>
      <label>Key <input type="password" autoComplete="off" value={key} onInput={(e) => setKey(e.currentTarget.value)} required maxLength={4096} /></label>
      <label>Base URL (optional) <input type="url" value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} placeholder="https://…" /></label>
      {admin && <label class="row"><input type="checkbox" checked={shared} onChange={(e) => setShared(e.currentTarget.checked)} /> Service-wide key (for accounts without their own)</label>}
      <div class="row"><button class="primary" type="submit" disabled={act.busy || !key}>Save key</button></div>
      {saved && <p role="status">{saved}</p>}
      <ErrorText message={act.error} />
    </form>
  );
}

function OAuthPaste({ id, admin, onChanged }: { id: string; admin: boolean; onChanged: () => void }) {
  const [url, setUrl] = useState('');
  const [shared, setShared] = useState(false);
  const [done, setDone] = useState('');
  const act = useAction();
  return (
    <details class="panel">
      <summary>Sign in through the browser (paste the callback URL)</summary>
      <form class="stack" onSubmit={async (e) => {
        e.preventDefault();
        const r = await act.run(() => api<{ forwarded?: boolean; masked?: string | null }>(`/api/providers/${id}/oauth-paste`, { method: 'POST', body: shared ? { url, shared } : { url } }));
        if (r) {
          setUrl('');
          setDone(r.forwarded ? 'The login was handed to the CLI, which finishes it.' : `Stored ${r.masked ?? ''}.`);
          onChanged();
        }
      }}>
        <p class="muted small">When the CLI's login opens a browser tab on another machine, finish the login there, then copy the address the browser ends on (it may fail to load) and paste it here.</p>
        <label>Callback URL <input type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required /></label>
        {admin && <label class="row"><input type="checkbox" checked={shared} onChange={(e) => setShared(e.currentTarget.checked)} /> As the service-wide key</label>}
        <div class="row"><button type="submit" disabled={act.busy || !url}>Complete sign-in</button></div>
        {done && <p role="status">{done}</p>}
        <ErrorText message={act.error} />
      </form>
    </details>
  );
}

function Models({ id }: { id: string }) {
  const models = useResource<Model[]>(`/api/providers/${id}/models`);
  const act = useAction();
  return (
    <div class="panel stack" role="region" aria-label="Models">
      <div class="row"><h3>Models</h3><span class="spacer" />
        <button onClick={() => act.run(async () => { await api(`/api/providers/${id}/models/cache`, { method: 'DELETE' }); models.reload(); })} disabled={act.busy}>Refresh</button></div>
      <ErrorText message={models.error || act.error} />
      <ul class="small">
        {(models.data ?? []).map((m) => <li key={m.id}><code>{m.id}</code> {m.name !== m.id ? m.name : ''} {m.contextWindow ? <span class="muted">· {m.contextWindow.toLocaleString()} tokens</span> : null} <span class="muted">· {m.source === 'endpoint' ? 'from the endpoint' : 'built in'}</span></li>)}
      </ul>
    </div>
  );
}

function ConfigFiles({ id }: { id: string }) {
  const files = useResource<ConfigFile[]>(`/api/providers/${id}/config-files`);
  const [open, setOpen] = useState<ConfigFile | null>(null);
  return (
    <details class="panel">
      <summary>Config files</summary>
      <ErrorText message={files.error} />
      <ul>
        {(files.data ?? []).map((f) => (
          <li key={f.fileId}><button class="link" onClick={() => setOpen(f)}>{f.label}</button> <code class="small">{f.path}</code> {!f.exists && <span class="muted small">(not created yet)</span>}{f.readOnly && <span class="muted small"> (read-only)</span>}</li>
        ))}
      </ul>
      {open && <ConfigEditor key={open.fileId} id={id} file={open} onSaved={files.reload} />}
    </details>
  );
}

function ConfigEditor({ id, file, onSaved }: { id: string; file: ConfigFile; onSaved: () => void }) {
  const content = useResource<{ content: string }>(`/api/providers/${id}/config-files/${enc(file.fileId)}`);
  const [text, setText] = useState<string | null>(null);
  const [line, setLine] = useState<number | null>(null);
  const [saved, setSaved] = useState('');
  const act = useAction();
  const value = text ?? content.data?.content ?? '';
  async function save() {
    setLine(null);
    setSaved('');
    try {
      await api(`/api/providers/${id}/config-files/${enc(file.fileId)}`, { method: 'PUT', body: { content: value } });
      setSaved('Saved.');
      onSaved();
    } catch (e) {
      act.setError((e as Error).message);
      setLine(e instanceof ApiError ? errorLine(e.message) : null);
    }
  }
  const lines = value.split('\n');
  return (
    <div class="stack">
      <label>{file.label} <span class="muted small">({file.format ?? 'text'})</span>
        <textarea class="editor" value={value} readOnly={file.readOnly} spellcheck={false} onInput={(e) => { setText(e.currentTarget.value); setLine(null); }} /></label>
      {line !== null && line >= 1 && line <= lines.length && (
        <div class="code-lines" tabIndex={0} aria-label="Where the error is">
          {lines.slice(Math.max(0, line - 3), line + 2).map((l, i) => {
            const n = Math.max(1, line - 2) + i;
            return <div key={n} class={n === line ? 'line-error' : ''}>{String(n).padStart(4)}  {l}</div>;
          })}
        </div>
      )}
      <ErrorText message={content.error || act.error} />
      {saved && <p role="status">{saved}</p>}
      {!file.readOnly && <div class="row"><button class="primary" onClick={save}>Save file</button></div>}
    </div>
  );
}

function McpServers({ id }: { id: string }) {
  const list = useResource<McpServer[]>(`/api/providers/${id}/mcp/servers`);
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [everywhere, setEverywhere] = useState(false);
  const act = useAction();
  async function add(e: Event) {
    e.preventDefault();
    const body = { name: name.trim(), command: command.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean) };
    const r = await act.run(() => api(everywhere ? '/api/providers/mcp/servers/global' : `/api/providers/${id}/mcp/servers`, { method: 'POST', body }));
    if (r) {
      setName(''); setCommand(''); setArgs('');
      list.reload();
    }
  }
  return (
    <details class="panel">
      <summary>MCP servers</summary>
      <ErrorText message={list.error} />
      <ul>
        {(list.data ?? []).map((m) => (
          <li key={m.scope + m.name}><strong>{m.name}</strong> <span class="muted small">{m.scope} · {m.transport ?? 'stdio'}</span> <code class="small">{m.command ?? m.url ?? ''} {(m.args ?? []).join(' ')}</code>
            <button class="link" onClick={() => act.run(async () => { await api(`/api/providers/${id}/mcp/servers/${enc(m.name)}?scope=${enc(m.scope)}`, { method: 'DELETE' }); list.reload(); })}>Remove</button></li>
        ))}
        {list.data?.length === 0 && <li class="muted">None.</li>}
      </ul>
      <form class="stack" onSubmit={add}>
        <h4>Add or replace</h4>
        <label>Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} required pattern="[A-Za-z0-9._\-]{1,64}" /></label>
        <label>Command (absolute path or program name) <input value={command} onInput={(e) => setCommand(e.currentTarget.value)} required /></label>
        <label>Arguments, one a line <textarea rows={3} value={args} onInput={(e) => setArgs(e.currentTarget.value)} /></label>
        <label class="row"><input type="checkbox" checked={everywhere} onChange={(e) => setEverywhere(e.currentTarget.checked)} /> For every provider (global)</label>
        <div class="row"><button type="submit" disabled={act.busy}>Save server</button></div>
        <ErrorText message={act.error} />
      </form>
    </details>
  );
}

