// The terminals a tab had open in a project, kept in sessionStorage (`aw.terminals.<project>`) so that a reload
// reattaches to the same shells on the server and replays their output. What is kept is each tab's title and the
// terminal's id on the server: not a credential (a reattach needs a fresh stream ticket from the signed-in session,
// and the server refuses another account's terminal as unknown). sessionStorage is per browser tab, so two tabs of
// the same project never take each other's terminals; it is gone when the tab is closed.

export interface StoredTerminal { title: string; sessionId: string }

const key = (project: string) => `aw.terminals.${project}`;

/** Parses what was stored; anything malformed gives no terminals (at most four, as the panel allows). */
export function parseTerminals(raw: string | null): StoredTerminal[] {
  if (!raw) return [];
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return [];
  }
  if (!Array.isArray(v)) return [];
  const out: StoredTerminal[] = [];
  for (const t of v) {
    if (t && typeof t === 'object' && typeof t.title === 'string' && typeof t.sessionId === 'string'
      && /^[A-Za-z0-9_-]{1,100}$/.test(t.sessionId) && t.title.length <= 100
      && !out.some((o) => o.sessionId === t.sessionId)) {
      out.push({ title: t.title, sessionId: t.sessionId });
    }
  }
  return out.slice(0, 4);
}

export function loadTerminals(project: string): StoredTerminal[] {
  try {
    return parseTerminals(sessionStorage.getItem(key(project)));
  } catch {
    return [];
  }
}

export function saveTerminals(project: string, list: StoredTerminal[]) {
  try {
    if (list.length) sessionStorage.setItem(key(project), JSON.stringify(list));
    else sessionStorage.removeItem(key(project));
  } catch {
    /* storage unavailable: a reload then starts new terminals */
  }
}
