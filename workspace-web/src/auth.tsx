import { useState } from 'preact/hooks';
import { api, ApiError, markSignedIn, type User } from './api';

function isLocalBrowser() {
  const h = location.hostname;
  return h === 'localhost' || h === '127.0.0.1' || h === '[::1]' || h === '::1';
}

interface Props { onSignedIn: (u: User) => void; notice?: string }

export function SetupScreen({ onSignedIn }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [token, setToken] = useState('');
  const [needToken, setNeedToken] = useState(!isLocalBrowser());
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    if (busy) return;
    if (password !== confirm) {
      setError('The passwords do not match.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const body: Record<string, string> = { username, password };
      if (needToken && token.trim()) body.setupToken = token.trim();
      const r = await api<{ user: User }>('/api/auth/register', { method: 'POST', body });
      markSignedIn();
      onSignedIn(r.user);
    } catch (err) {
      const e2 = err as ApiError;
      if (e2.code === 'SETUP_TOKEN_REQUIRED') setNeedToken(true);
      setError(e2.message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="auth">
      <form class="card" onSubmit={submit} aria-labelledby="setup-title">
        <h1 id="setup-title">Set up Agent Workspace</h1>
        <p class="muted">Create the administrator account. This account can run agents on this machine.</p>
        <label>Username<input name="username" autoComplete="username" required maxLength={64} value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></label>
        <label>Password<input name="password" type="password" autoComplete="new-password" required minLength={8} value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        <label>Repeat password<input name="confirm" type="password" autoComplete="new-password" required minLength={8} value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} /></label>
        {needToken && (
          <label>Setup token
            <input name="setupToken" autoComplete="off" spellcheck={false} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
            <small class="muted">You are not on the server's own machine: paste the token from <code>&lt;data dir&gt;/setup-token</code>.</small>
          </label>
        )}
        {error && <p class="error" role="alert">{error}</p>}
        <button class="primary" type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create account'}</button>
      </form>
    </main>
  );
}

export function LoginScreen({ onSignedIn, notice }: Props) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError('');
    try {
      const r = await api<{ user: User }>('/api/auth/login', { method: 'POST', body: { username, password } });
      markSignedIn();
      onSignedIn(r.user);
    } catch (err) {
      setError((err as ApiError).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="auth">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Sign in</h1>
        {notice && <p class="notice" role="status">{notice}</p>}
        <label>Username<input name="username" autoComplete="username" required value={username} onInput={(e) => setUsername(e.currentTarget.value)} /></label>
        <label>Password<input name="password" type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
        {error && <p class="error" role="alert">{error}</p>}
        <button class="primary" type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
      </form>
    </main>
  );
}
