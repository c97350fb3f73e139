// Users (administrators): list, create (optionally as administrator), delete.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorText, useAction, useResource, when } from './common';

interface UserRow { id: number; username: string; email: string | null; created_at: string; is_admin: boolean }

export default function UsersPage({ admin }: { admin: boolean }) {
  const users = useResource<UserRow[]>(admin ? '/api/users' : null);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [email, setEmail] = useState('');
  const [isAdminNew, setIsAdminNew] = useState(false);
  const [done, setDone] = useState('');
  const act = useAction();
  if (!admin) return <p>Only administrators manage users.</p>;
  async function create(e: Event) {
    e.preventDefault();
    const body: Record<string, unknown> = { username: username.trim(), password, is_admin: isAdminNew };
    if (email.trim()) body.email = email.trim();
    const u = await act.run(() => api<UserRow>('/api/users', { method: 'POST', body }));
    if (u) {
      setDone(`Created ${u.username}.`);
      setUsername(''); setPassword(''); setEmail(''); setIsAdminNew(false);
      users.reload();
    }
  }
  return (
    <div class="stack">
      <div class="table-wrap">
        <table class="list">
          <thead><tr><th>User</th><th>Email</th><th>Role</th><th>Created</th><th><span class="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {(users.data ?? []).map((u) => (
              <tr key={u.id}>
                <td>{u.username}</td><td>{u.email ?? '—'}</td><td>{u.is_admin ? 'administrator' : 'user'}</td><td>{when(u.created_at)}</td>
                <td><button class="danger" aria-label={`Delete ${u.username}`} onClick={() => confirm(`Delete ${u.username} and their API keys?`) && act.run(async () => { await api(`/api/users/${u.id}`, { method: 'DELETE' }); users.reload(); })}>Delete</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorText message={users.error} />
      <form class="panel stack" onSubmit={create} aria-label="New user">
        <h2>New user</h2>
        <label>Username <input value={username} onInput={(e) => setUsername(e.currentTarget.value)} required autoComplete="off" /></label>
        <label>Password (8 characters or more) <input type="password" value={password} minLength={8} onInput={(e) => setPassword(e.currentTarget.value)} required autoComplete="new-password" /></label>
        <label>Email (optional) <input type="email" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></label>
        <label class="row"><input type="checkbox" checked={isAdminNew} onChange={(e) => setIsAdminNew(e.currentTarget.checked)} /> Administrator</label>
        <div class="row"><button class="primary" type="submit" disabled={act.busy}>Create user</button></div>
        {done && <p role="status">{done}</p>}
        <ErrorText message={act.error} />
      </form>
    </div>
  );
}
