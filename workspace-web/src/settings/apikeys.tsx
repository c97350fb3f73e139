// API keys: create with chosen scopes (each explained), the secret shown once to copy, toggle, delete, last used.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorText, useAction, useResource, when } from './common';
import { DEFAULT_SCOPES, SCOPES, SCOPE_TEXT, scopeSummary, type Scope } from './logic';

interface ApiKey { id: number; key_name: string; api_key: string; created_at: string; last_used: string | null; is_active: boolean; scopes: string[]; legacy: boolean }

export default function ApiKeysPage({ admin }: { admin: boolean }) {
  const keys = useResource<ApiKey[]>('/api/settings/api-keys');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Set<Scope>>(new Set(DEFAULT_SCOPES));
  const [created, setCreated] = useState<ApiKey | null>(null);
  const [copied, setCopied] = useState('');
  const act = useAction();

  async function create(e: Event) {
    e.preventDefault();
    const k = await act.run(() => api<ApiKey>('/api/settings/api-keys', { method: 'POST', body: { name: name.trim(), scopes: SCOPES.filter((s) => scopes.has(s)) } }));
    if (k) {
      setCreated(k);
      setCopied('');
      setName('');
      keys.reload();
    }
  }

  async function copy(text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied.');
    } catch {
      setCopied('Select the key and copy it.');
    }
  }

  return (
    <div class="stack">
      <p class="muted">Keys let scripts and other programs use the API as you (header <code>Authorization: Bearer px_…</code> or <code>X-API-Key</code>). A key can never manage keys, users or providers.</p>
      {created && (
        <div class="panel stack" role="region" aria-label="New key">
          <strong>Key “{created.key_name}” created. Copy it now: it is not shown again.</strong>
          <code class="secret" aria-label="New API key">{created.api_key}</code>
          <div class="row"><button class="primary" onClick={() => copy(created.api_key)}>Copy</button><button onClick={() => setCreated(null)}>Done</button>{copied && <span role="status">{copied}</span>}</div>
        </div>
      )}
      <form class="panel stack" onSubmit={create} aria-label="Create a key">
        <h2>New key</h2>
        <label>Name <input value={name} onInput={(e) => setName(e.currentTarget.value)} required maxLength={100} placeholder="e.g. CI job" /></label>
        <fieldset class="stack scopes">
          <legend>What the key may do</legend>
          {SCOPES.map((s) => {
            const adminOnly = s === 'system:update' || s.startsWith('orchestration');
            if (adminOnly && !admin) return null;
            return (
              <label key={s}>
                <input type="checkbox" checked={scopes.has(s)} onChange={(e) => {
                  const n = new Set(scopes);
                  if (e.currentTarget.checked) n.add(s); else n.delete(s);
                  setScopes(n);
                }} />
                <span><code>{s}</code> — {SCOPE_TEXT[s]}</span>
              </label>
            );
          })}
        </fieldset>
        <div class="row"><button class="primary" type="submit" disabled={act.busy || !name.trim() || scopes.size === 0}>Create key</button></div>
        <ErrorText message={act.error} />
      </form>
      <h2>Your keys</h2>
      <ErrorText message={keys.error} />
      <div class="table-wrap">
        <table class="list">
          <thead><tr><th>Name</th><th>Key</th><th>Scopes</th><th>Created</th><th>Last used</th><th>Active</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(keys.data ?? []).map((k) => (
              <tr key={k.id}>
                <td>{k.key_name}{k.legacy && <span class="badge">legacy</span>}</td>
                <td><code>{k.api_key}</code></td>
                <td title={k.scopes.join(' ')}>{scopeSummary(k.scopes)}</td>
                <td>{when(k.created_at)}</td>
                <td>{k.last_used ? when(k.last_used) : 'never'}</td>
                <td><label><input type="checkbox" checked={k.is_active} aria-label={`${k.key_name} active`}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    keys.setData((keys.data ?? []).map((x) => (x.id === k.id ? { ...x, is_active: on } : x)));
                    act.run(async () => { await api(`/api/settings/api-keys/${k.id}/toggle`, { method: 'PATCH', body: { is_active: on } }); }).finally(keys.reload);
                  }} /></label></td>
                <td><button class="danger" aria-label={`Delete ${k.key_name}`} onClick={() => {
                  if (confirm(`Delete the key “${k.key_name}”? Programs using it stop working at once.`)) act.run(async () => { await api(`/api/settings/api-keys/${k.id}`, { method: 'DELETE' }); keys.reload(); });
                }}>Delete</button></td>
              </tr>
            ))}
            {keys.data?.length === 0 && <tr><td colSpan={7} class="muted">No keys yet.</td></tr>}
          </tbody>
        </table>
      </div>
    </div>
  );
}
