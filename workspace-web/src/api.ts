// The REST client. The session is the HTTP-only cookie set by login: nothing secret is kept in JS, in the URL or in
// localStorage. A 401 on an authenticated call means the session is gone: it is reported once, and further calls
// are refused locally until the next sign-in, so an expired session does not cause a storm of failing requests.

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

let signedOut = false;
const expiredListeners = new Set<() => void>();

/** Called once when an authenticated request answers 401. */
export function onSessionExpired(fn: () => void): () => void {
  expiredListeners.add(fn);
  return () => expiredListeners.delete(fn);
}

/** After a successful sign-in: requests are allowed again. */
export function markSignedIn() {
  signedOut = false;
}

export function isSignedOut() {
  return signedOut;
}

function publicPath(path: string) {
  return path.startsWith('/api/auth/status') || path.startsWith('/api/auth/login') || path.startsWith('/api/auth/register');
}

export interface ApiOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function api<T>(path: string, opts: ApiOptions = {}): Promise<T> {
  if (signedOut && !publicPath(path)) {
    throw new ApiError(401, 'AUTH_REQUIRED', 'You are signed out.');
  }
  const headers: Record<string, string> = { Accept: 'application/json', ...(opts.headers ?? {}) };
  let body: string | undefined;
  if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(opts.body);
  }
  let res: Response;
  try {
    res = await fetch(path, { method: opts.method ?? 'GET', headers, body, credentials: 'same-origin', signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'NETWORK_ERROR', 'The server cannot be reached.');
  }
  const text = await res.text();
  let data: any = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const code = data?.error?.code ?? `HTTP_${res.status}`;
    const message = data?.error?.message ?? res.statusText ?? 'request failed';
    if (res.status === 401 && !publicPath(path)) {
      if (!signedOut) {
        signedOut = true;
        expiredListeners.forEach((fn) => fn());
      }
    }
    throw new ApiError(res.status, code, message);
  }
  return data as T;
}

export const enc = encodeURIComponent;

// ---- wire types (docs/openapi.yaml) ----
export interface User { id: number | string; username: string; is_admin?: boolean; isAdmin?: boolean }
export interface AuthStatus { isAuthenticated: boolean; needsSetup: boolean; user: User | null }
export interface SessionMeta {
  id: string; title: string | null; provider: string; lastActivity: string; createdAt: string;
  messageCount: number | null; projectName: string;
}
export interface Project {
  name: string; displayName: string; path: string; fullPath: string; sessions: SessionMeta[];
  sessionCount: number; lastActivity: string; registered: boolean;
}
export interface SessionMessage {
  id: string; role: 'user' | 'assistant' | 'system' | 'tool';
  kind: 'text' | 'tool_call' | 'tool_result' | 'thinking' | 'error' | 'other';
  text: string; toolName: string | null; toolCallId: string | null; toolInputJson: string | null;
  toolOutput: string | null; toolError: boolean; timestamp: string | null;
  usage: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number } | null;
}
export interface MessagesPage { messages: SessionMessage[]; total: number; hasMore: boolean; offset: number; limit: number }
export interface SearchResult {
  provider: string; sessionId: string; projectName: string | null; sessionTitle: string; messageId: string;
  role: string; timestamp: string | null; snippet: string; score: number;
}
export interface BrowseListing { path: string; parent: string | null; entries: { name: string; type: string }[] }

export function isAdmin(u: User | null | undefined) {
  return !!u && (u.is_admin === true || u.isAdmin === true);
}
