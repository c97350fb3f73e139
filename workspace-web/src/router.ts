// A small history router. Routes are data, so later panels (files, git, terminal, settings pages) are added as
// entries whose view is loaded lazily (see app.tsx).

export type Route =
  | { name: 'home' }
  | { name: 'project'; project: string }
  | { name: 'session'; project: string; sessionId: string; provider?: string; messageId?: string }
  | { name: 'new-chat'; project: string }
  | { name: 'settings'; page: string; sub?: string }
  | { name: 'not-found'; path: string };

export function parseRoute(pathname: string, search = ''): Route {
  const q = new URLSearchParams(search);
  const parts = pathname.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts.length === 0) return { name: 'home' };
  if (parts[0] === 'projects' && parts.length >= 2) {
    const project = parts[1];
    if (parts.length === 2) return { name: 'project', project };
    if (parts.length === 3 && parts[2] === 'new') return { name: 'new-chat', project };
    if (parts.length === 4 && parts[2] === 'sessions') {
      return {
        name: 'session', project, sessionId: parts[3],
        provider: q.get('provider') ?? undefined, messageId: q.get('message') ?? undefined,
      };
    }
  }
  if (parts[0] === 'settings') return { name: 'settings', page: parts[1] ?? 'notifications', sub: parts.length > 2 ? parts.slice(2).join('/') : undefined };
  return { name: 'not-found', path: pathname };
}

export function sessionPath(project: string, sessionId: string, provider?: string, messageId?: string) {
  const q = new URLSearchParams();
  if (provider) q.set('provider', provider);
  if (messageId) q.set('message', messageId);
  const qs = q.toString();
  return `/projects/${encodeURIComponent(project)}/sessions/${encodeURIComponent(sessionId)}${qs ? '?' + qs : ''}`;
}

type Listener = (r: Route) => void;
const listeners = new Set<Listener>();

export function currentRoute(): Route {
  return parseRoute(location.pathname, location.search);
}

export function navigate(path: string, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  const r = currentRoute();
  listeners.forEach((l) => l(r));
}

export function onRoute(fn: Listener) {
  listeners.add(fn);
  const pop = () => fn(currentRoute());
  window.addEventListener('popstate', pop);
  return () => {
    listeners.delete(fn);
    window.removeEventListener('popstate', pop);
  };
}
