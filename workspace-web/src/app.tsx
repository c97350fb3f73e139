import { lazy, Suspense } from 'preact/compat';
import { useEffect, useState } from 'preact/hooks';
import { api, isAdmin, onSessionExpired, type AuthStatus, type User } from './api';
import { LoginScreen, SetupScreen } from './auth';
import { currentRoute, navigate, onRoute, type Route } from './router';
import { Sidebar } from './sidebar';
import { closeChatSocket } from './socket';
import { UpdateBanner } from './pwa';
import { projects, useProjects } from './store';

// Panels that are not part of the daily loop are loaded on demand: each is a chunk of its own.
const SearchPalette = lazy(() => import('./palette'));
const SettingsPage = lazy(() => import('./settings'));
const FirstRunGuide = lazy(() => import('./settings/firstrun'));
// The workspace frame with the conversation (Markdown, sanitizer, virtual list) is only needed on project routes:
// the start page, whose first paint is the project list, does not wait for it.
const ProjectView = lazy(() => import('./projectview'));

/** Fetches the project view's chunk ahead of the first click on a session (after the start page is drawn). */
function warmWorkspace() {
  import('./projectview').catch(() => { /* loaded again on use */ });
}

/**
 * The sign-in state, asked for as soon as the bundle runs rather than after the first render's effects (which wait
 * for a frame): the first check() takes this answer.
 */
let earlyStatus: Promise<AuthStatus> | null = api<AuthStatus>('/api/auth/status');
earlyStatus.catch(() => { /* check() reports it */ });

type Phase = { kind: 'loading' } | { kind: 'setup' } | { kind: 'login'; notice?: string } | { kind: 'ready'; user: User } | { kind: 'offline' };

export function App() {
  const [phase, setPhase] = useState<Phase>({ kind: 'loading' });

  async function check() {
    try {
      const first = earlyStatus;
      earlyStatus = null;
      const s = await (first ?? api<AuthStatus>('/api/auth/status'));
      if (s.needsSetup) setPhase({ kind: 'setup' });
      else if (!s.isAuthenticated || !s.user) setPhase({ kind: 'login' });
      else {
        // the project list is the start page's first content: asked for now, not after the shell's first render
        if (!projects.list) projects.load();
        setPhase({ kind: 'ready', user: s.user });
      }
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
    case 'session':
      return (
        <Suspense fallback={<p class="pad muted">Loading…</p>}>
          <ProjectView route={route} admin={admin} />
        </Suspense>
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
  // The first-run guide asks every provider for its status (the server probes each CLI) and loads its own chunk:
  // started only once the project list has come (or failed) and the browser is idle, so none of that competes
  // with the list for the network, the server or the page's thread.
  const store = useProjects();
  const listDone = store.list !== null || store.error !== null;
  const [guide, setGuide] = useState(false);
  useEffect(() => {
    if (!listDone || guide) return;
    const ric = window.requestIdleCallback;
    if (ric) {
      const id = ric(() => { setGuide(true); warmWorkspace(); }, { timeout: 1500 });
      return () => window.cancelIdleCallback(id);
    }
    const t = setTimeout(() => { setGuide(true); warmWorkspace(); }, 50);
    return () => clearTimeout(t);
  }, [listDone, guide]);
  return (
    <section class="pad home">
      <h1>Welcome</h1>
      <p>Pick a project to continue a conversation, or start a new chat in it. Add a project folder with
        <strong> + Project</strong>. Search every conversation with <kbd>Ctrl</kbd>+<kbd>K</kbd> or ⌕.</p>
      <button class="primary phone-only" onClick={onOpenProjects}>Show projects</button>
      {guide && <Suspense fallback={null}><FirstRunGuide /></Suspense>}
    </section>
  );
}
