import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api, isAdmin, onSessionExpired, type AuthStatus, type User } from './api';
import { LoginScreen, SetupScreen } from './auth';
import { currentRoute, navigate, onRoute, type Route } from './router';
import { Sidebar } from './sidebar';
import { Conversation } from './conversation';
import { closeChatSocket } from './socket';
import { UpdateBanner } from './pwa';
import { projects } from './store';
import { Workspace } from './workspace/frame';

// Panels that are not part of the daily loop are loaded on demand: each is a chunk of its own.
const SearchPalette = lazy(() => import('./palette'));
const SettingsPage = lazy(() => import('./settings'));
const FirstRunGuide = lazy(() => import('./settings/firstrun'));

type Phase = { kind: 'loading' } | { kind: 'setup' } | { kind: 'login'; notice?: string } | { kind: 'ready'; user: User } | { kind: 'offline' };

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  async function check() {
    try {
      const s = await api<AuthStatus>('/api/auth/status');
      if (s.needsSetup) setPhase({ kind: 'setup' });
      else if (!s.isAuthenticated || !s.user) setPhase({ kind: 'login' });
      else setPhase({ kind: 'ready', user: s.user });
    } catch {
      setPhase({ kind: 'offline' });
    }
  }

  // offline (the service worker served the cached shell, or the server is down): try again when the browser is back
  useEffect(() => {
    if (phase.kind !== 'offline') return;
    window.addEventListener('online', check);
    return () => window.removeEventListener('online', check);
  }, [phase.kind]);

  useEffect(() => {
    check();
    return onSessionExpired(() => {
      closeChatSocket();
      projects.reset();
      setPhase({ kind: 'login', notice: 'Your session has ended. Sign in again.' });
    });
  }, []);

  switch (phase.kind) {
    case 'loading':
      return <div class="splash" aria-busy="true">Loading…</div>;
    case 'offline':
      return (
        <main class="auth">
          <div class="card">
            <h1>Offline</h1>
            <p>{navigator.onLine ? 'The server cannot be reached.' : 'This device is offline.'} The app tries again when the connection is back.</p>
            <button class="primary" onClick={check}>Try again</button>
          </div>
        </main>
      );
    case 'setup':
      return <SetupScreen onSignedIn={(user) => setPhase({ kind: 'ready', user })} />;
    case 'login':
      return <LoginScreen notice={phase.notice} onSignedIn={(user) => setPhase({ kind: 'ready', user })} />;
    case 'ready':
      return (
        <Shell
          user={phase.user}
          onLogout={async () => {
            try {
              await api('/api/auth/logout', { method: 'POST', body: {} });
            } catch {
              /* signed out locally either way */
            }
            closeChatSocket();
            projects.reset();
            navigate('/', true);
            setPhase({ kind: 'login', notice: 'You are signed out.' });
          }}
        />
      );
  }
}

function Shell({ user, onLogout }: { user: User; onLogout: () => void }) {
  const [route, setRoute] = useState<Route>(currentRoute());
  const [drawer, setDrawer] = useState(false);
  const [palette, setPalette] = useState(false);

  useEffect(() => onRoute((r) => {
    setRoute(r);
    setDrawer(false);
  }), []);

  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setPalette(true);
      }
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, []);

  return (
    <div class={`shell${drawer ? ' drawer-open' : ''}`}>
      <header class="topbar">
        <button class="icon menu" aria-label="Projects" aria-expanded={drawer} onClick={() => setDrawer(!drawer)}>☰</button>
        <a class="brand" href="/" onClick={(e) => { e.preventDefault(); navigate('/'); }}>Agent Workspace</a>
        <span class="spacer" />
        <button class="icon" aria-label="Search conversations" title="Search (Ctrl+K)" onClick={() => setPalette(true)}>⌕</button>
        <button class="icon" aria-label="Settings" title="Settings" onClick={() => navigate('/settings/providers')}>⚙</button>
        <span class="user" title={user.username}>{user.username}</span>
        <button class="link" onClick={onLogout}>Sign out</button>
      </header>
      <UpdateBanner />
      <Sidebar user={user} route={route} />
      <div class="scrim" onClick={() => setDrawer(false)} />
      <main class="main" id="main">
        <RouteView route={route} admin={isAdmin(user)} onOpenProjects={() => setDrawer(true)} />
      </main>
      {palette && (
        <Suspense fallback={null}>
          <SearchPalette onClose={() => setPalette(false)} />
        </Suspense>
      )}
    </div>
  );
}

function RouteView({ route, admin, onOpenProjects }: { route: Route; admin: boolean; onOpenProjects: () => void }) {
  switch (route.name) {
    case 'home':
      return <Home onOpenProjects={onOpenProjects} />;
    case 'project':
    case 'new-chat':
      return (
        <Workspace key={route.project} project={route.project} admin={admin}>
          <Conversation key={`new:${route.project}`} project={route.project} />
        </Workspace>
      );
    case 'session':
      return (
        <Workspace key={route.project} project={route.project} admin={admin}>
          <Conversation key={`s:${route.sessionId}:${route.messageId ?? ''}`} project={route.project} sessionId={route.sessionId} provider={route.provider} messageId={route.messageId} />
        </Workspace>
      );
    case 'settings':
      return (
        <Suspense fallback={<p class="pad">Loading…</p>}>
          <SettingsPage page={route.page} sub={route.sub} />
        </Suspense>
      );
    default:
      return (
        <section class="pad">
          <h1>Not found</h1>
          <p>Nothing lives at this address. <a href="/" onClick={(e) => { e.preventDefault(); navigate('/'); }}>Go to the start page</a>.</p>
        </section>
      );
  }
}

function Home({ onOpenProjects }: { onOpenProjects: () => void }) {
  return (
    <section class="pad home">
      <h1>Welcome</h1>
      <p>Pick a project to continue a conversation, or start a new chat in it. Add a project folder with
        <strong> + Project</strong>. Search every conversation with <kbd>Ctrl</kbd>+<kbd>K</kbd> or ⌕.</p>
      <button class="primary phone-only" onClick={onOpenProjects}>Show projects</button>
      <Suspense fallback={null}><FirstRunGuide /></Suspense>
    </section>
  );
}
