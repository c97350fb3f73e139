// The files the agent changed in the chat session shown now, for the file tree and the git panel to mark. The
// conversation (conversation.tsx) publishes them from its tool calls (tools.tsx agentChangedPaths); the panels read
// them. Tiny and free of imports but Preact's hooks: the conversation's chunk and the panels' chunks share it.
import { useEffect, useState } from 'preact/hooks';

const EMPTY: ReadonlySet<string> = new Set();
let current: { project: string; paths: ReadonlySet<string> } = { project: '', paths: EMPTY };
const listeners = new Set<() => void>();

function same(a: ReadonlySet<string>, b: ReadonlySet<string>) {
  if (a.size !== b.size) return false;
  for (const p of a) if (!b.has(p)) return false;
  return true;
}

/** Sets the project-relative paths the current session's agent changed in `project` (empty: none, or no session). */
export function setAgentChanged(project: string, paths: ReadonlySet<string>) {
  if (current.project === project && same(current.paths, paths)) return;
  current = { project, paths };
  listeners.forEach((l) => l());
}

export function agentChanged(project: string): ReadonlySet<string> {
  return current.project === project ? current.paths : EMPTY;
}

/** The paths as state of a component: drawn again when they change. */
export function useAgentChanged(project: string): ReadonlySet<string> {
  const [paths, setPaths] = useState(() => agentChanged(project));
  useEffect(() => {
    const on = () => setPaths(agentChanged(project));
    listeners.add(on);
    on();
    return () => {
      listeners.delete(on);
    };
  }, [project]);
  return paths;
}

/** True when a folder holds one of the paths (at any depth). */
export function holdsAny(folder: string, paths: ReadonlySet<string>) {
  if (paths.size === 0) return false;
  const prefix = folder + '/';
  for (const p of paths) if (p.startsWith(prefix)) return true;
  return false;
}
