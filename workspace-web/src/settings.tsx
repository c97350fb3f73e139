// Settings pages, loaded lazily: this file is the shell (tabs) and the notification preferences; every other page
// is a chunk of its own under settings/.
import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api, isAdmin, type AuthStatus } from './api';
import { navigate } from './router';

const pages: { id: string; label: string; admin?: boolean; view: any }[] = [
  { id: 'providers', label: 'Providers', view: lazy(() => import('./settings/providers')) },
  { id: 'api-keys', label: 'API keys', view: lazy(() => import('./settings/apikeys')) },
  { id: 'tasks', label: 'Tasks', view: lazy(() => import('./settings/tasks')) },
  { id: 'runs', label: 'Runs', view: lazy(() => import('./settings/runs')) },
  { id: 'notifications', label: 'Notifications', view: Notifications },
  { id: 'appearance', label: 'Appearance', view: lazy(() => import('./settings/appearance')) },
  { id: 'users', label: 'Users', admin: true, view: lazy(() => import('./settings/users')) },
  { id: 'network', label: 'Network', admin: true, view: lazy(() => import('./settings/network')) },
  { id: 'admin', label: 'Agent loop', admin: true, view: lazy(() => import('./settings/admin')) },
  { id: 'system', label: 'System', admin: true, view: lazy(() => import('./settings/system')) },
];

export default function SettingsPage({ page, sub }: { page: string; sub?: string }) {
  const [admin, setAdmin] = useState(false);
  useEffect(() => {
    api<AuthStatus>('/api/auth/status').then((s) => setAdmin(isAdmin(s.user))).catch(() => {});
  }, []);
  const current = pages.find((p) => p.id === page);
  const View = current?.view;
  return (
    <section class="pad settings">
      <h1>Settings</h1>
      <nav class="tabs" aria-label="Settings pages">
        {pages.filter((p) => !p.admin || admin || p.id === page).map((p) => (
          <a key={p.id} class={`tab${p.id === page ? ' on' : ''}`} href={`/settings/${p.id}`} aria-current={p.id === page ? 'page' : undefined}
            onClick={(e) => { e.preventDefault(); navigate(`/settings/${p.id}`); }}>{p.label}</a>
        ))}
      </nav>
      {View ? (
        <Suspense fallback={<p>Loading…</p>}>
          <View sub={sub} admin={admin} />
        </Suspense>
      ) : <p>Unknown settings page.</p>}
    </section>
  );
}

function urlBase64ToUint8Array(b64: string) {
  const pad = '='.repeat((4 - (b64.length % 4)) % 4);
  const raw = atob((b64 + pad).replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

function Notifications() {
  const [prefs, setPrefs] = useState<Record<string, any> | null>(null);
  const [status, setStatus] = useState('');
  const [subscribed, setSubscribed] = useState<boolean | null>(null);
  const supported = 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;

  useEffect(() => {
    api<Record<string, any>>('/api/settings/notification-preferences').then(setPrefs).catch((e) => setStatus(e.message));
    if (supported) {
      navigator.serviceWorker.getRegistration().then(async (reg) => setSubscribed(!!(await reg?.pushManager.getSubscription())));
    }
  }, []);

  async function subscribe() {
    setStatus('');
    try {
      const perm = await Notification.requestPermission();
      if (perm !== 'granted') throw new Error('Notifications are blocked for this site in the browser settings.');
      const reg = await navigator.serviceWorker.ready;
      const { publicKey } = await api<{ publicKey: string }>('/api/notifications/web-push/public-key');
      const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: urlBase64ToUint8Array(publicKey) });
      await api('/api/notifications/web-push/subscriptions', { method: 'POST', body: sub.toJSON() });
      setSubscribed(true);
      if (prefs?.preferences?.channels && !prefs.preferences.channels.webPush) await toggle(['channels', 'webPush'], true);
      setStatus('This browser will get notifications.');
    } catch (e) {
      setStatus((e as Error).message);
    }
  }

  async function unsubscribe() {
    const reg = await navigator.serviceWorker.getRegistration();
    const sub = await reg?.pushManager.getSubscription();
    await sub?.unsubscribe();
    setSubscribed(false);
    setStatus('Push notifications are off for this browser.');
  }

  // a test message to this account's subscriptions (this device's among them), whatever the preferences say
  async function sendTest() {
    setStatus('');
    try {
      const r = await api<{ sent: number }>('/api/notifications/web-push/test', { method: 'POST', body: {} });
      setStatus(r.sent === 0 ? 'No device of yours is subscribed: turn notifications on first.'
        : `A test notification is on its way to ${r.sent === 1 ? 'your subscribed device' : `your ${r.sent} subscribed devices`}.`);
    } catch (e) {
      setStatus((e as Error).message);
    }
  }

  // the route takes the whole document: a copy with one value changed
  async function toggle(path: string[], value: boolean) {
    const body = JSON.parse(JSON.stringify(prefs?.preferences ?? {}));
    let o = body;
    for (let i = 0; i < path.length - 1; i++) o = o[path[i]];
    o[path[path.length - 1]] = value;
    try {
      setPrefs(await api('/api/settings/notification-preferences', { method: 'PUT', body }));
    } catch (e) {
      setStatus((e as Error).message);
    }
  }

  const p = prefs?.preferences;
  return (
    <div class="stack">
      <h2>Push notifications on this device</h2>
      {!supported && <p class="muted">This browser cannot receive push notifications (on iPhone: add the app to the home screen first).</p>}
      {supported && (
        <div class="row">
          {subscribed ? <button onClick={unsubscribe}>Turn off on this device</button> : <button class="primary" onClick={subscribe}>Turn on for this device</button>}
          {subscribed && <button onClick={sendTest}>Send a test</button>}
        </div>
      )}
      {status && <p class="notice" role="status">{status}</p>}
      {p && typeof p === 'object' && (
        <>
          <h2>What to notify</h2>
          <Toggles value={p} path={[]} onToggle={toggle} />
        </>
      )}
      <Inbox />
    </div>
  );
}

interface Note { id: string; kind: string; title: string; body: string; projectName: string | null; sessionId: string | null; runId: string | null; createdAt: string; read: boolean }

/** The in-app notifications (kept while the in-app channel is on), newest first, with "mark all read". */
function Inbox() {
  const [list, setList] = useState<{ notifications: Note[]; unread: number } | null>(null);
  const [error, setError] = useState('');
  const load = () => api<{ notifications: Note[]; unread: number }>('/api/notifications?limit=50').then(setList, (e) => setError(e.message));
  useEffect(() => { load(); }, []);
  return (
    <section class="stack" aria-label="Recent notifications">
      <div class="row"><h2>Recent notifications {list ? `(${list.unread} unread)` : ''}</h2><span class="spacer" />
        {!!list?.unread && <button onClick={() => api('/api/notifications/read-all', { method: 'POST', body: {} }).then(load, (e) => setError(e.message))}>Mark all read</button>}</div>
      {error && <p class="error" role="alert">{error}</p>}
      <ul>
        {(list?.notifications ?? []).map((n) => (
          <li key={n.id} class={n.read ? 'muted' : ''}>
            <strong>{n.title}</strong> <span class="small">{new Date(n.createdAt).toLocaleString()}</span>
            <div class="small">{n.body}</div>
            {n.projectName && n.sessionId && <a href={`/projects/${encodeURIComponent(n.projectName)}/sessions/${encodeURIComponent(n.sessionId)}`} onClick={(e) => { e.preventDefault(); navigate(`/projects/${encodeURIComponent(n.projectName!)}/sessions/${encodeURIComponent(n.sessionId!)}`); }}>Open the conversation</a>}
            {!n.sessionId && n.runId && <a href={`/settings/runs/${encodeURIComponent(n.runId)}`} onClick={(e) => { e.preventDefault(); navigate(`/settings/runs/${encodeURIComponent(n.runId!)}`); }}>Open the run</a>}
          </li>
        ))}
        {list?.notifications.length === 0 && <li class="muted">None.</li>}
      </ul>
    </section>
  );
}

function Toggles({ value, path, onToggle }: { value: Record<string, any>; path: string[]; onToggle: (p: string[], v: boolean) => void }) {
  return (
    <ul class="toggles">
      {Object.entries(value).map(([k, v]) =>
        typeof v === 'boolean' ? (
          <li key={k}><label><input type="checkbox" checked={v} onChange={(e) => onToggle([...path, k], e.currentTarget.checked)} /> {[...path, k].join(' › ')}</label></li>
        ) : v && typeof v === 'object' && !Array.isArray(v) ? (
          <li key={k}><Toggles value={v} path={[...path, k]} onToggle={onToggle} /></li>
        ) : null,
      )}
    </ul>
  );
}
