// Shared state of the sidebar: the projects with their sessions. A tiny observable; views subscribe with useStore.
import { useEffect, useState } from 'preact/hooks';
import { api, type Project, type SessionMeta } from './api';

type Listener = () => void;

/**
 * The project list, asked for again once when no answer came within 8 s: a request left hanging (seen in the browser
 * tests now and then, on a fresh connection right after a page load; cause not found yet) must not leave the sidebar
 * "Loading projects…" for good. A second silence is shown as an error with Retry.
 */
async function listProjects(): Promise<Project[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<Project[]>('/api/projects', { signal: AbortSignal.timeout(8000) });
    } catch (e) {
      const name = (e as Error).name;
      const silent = name === 'TimeoutError' || name === 'AbortError' || (e as { code?: string }).code === 'NETWORK_ERROR';
      if (!silent) throw e;
      if (attempt >= 2) throw new Error('The server did not answer the project list.');
      console.warn('the project list did not come within 8 s; asking again');
    }
  }
}

class ProjectsStore {
  list: Project[] | null = null;
  error: string | null = null;
  loading = false;
  /** Sessions loaded beyond the ten a project carries, by project. */
  sessions = new Map<string, SessionMeta[]>();
  private listeners = new Set<Listener>();
  private inflight: Promise<void> | null = null;

  subscribe(fn: Listener) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private emit() {
    this.listeners.forEach((fn) => fn());
  }

  load(): Promise<void> {
    if (this.inflight) return this.inflight;
    this.loading = true;
    this.emit();
    this.inflight = listProjects()
      .then((list) => {
        this.list = list;
        this.error = null;
      })
      .catch((e) => {
        this.error = (e as Error).message;
      })
      .finally(() => {
        this.loading = false;
        this.inflight = null;
        this.emit();
      });
    return this.inflight;
  }

  async loadSessions(project: string) {
    const all = await api<SessionMeta[]>(`/api/projects/${encodeURIComponent(project)}/sessions`);
    this.sessions.set(project, all);
    this.emit();
  }

  reset() {
    this.list = null;
    this.sessions.clear();
    this.emit();
  }

  find(name: string) {
    return this.list?.find((p) => p.name === name);
  }
}

export const projects = new ProjectsStore();

export function useProjects() {
  const [, setTick] = useState(0);
  useEffect(() => projects.subscribe(() => setTick((t) => t + 1)), []);
  return projects;
}
