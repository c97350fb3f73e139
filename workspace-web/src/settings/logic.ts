// Pure logic of the settings pages (unit-tested in logic.test.ts): provider readiness and the first-run step, scope
// descriptions, reading hints out of the server's error messages; the providers' status list.
import { api } from '../api';
import { PROVIDERS } from '../ui';

export function providerReady(p: { installed: boolean; authenticated: boolean }) {
  return p.installed && p.authenticated;
}

/** The first-run guide's step: 'install' until one is installed, 'key' until one is also signed in, then 'chat'. */
export function firstRunStep(list: { installed: boolean; authenticated: boolean }[]): 'install' | 'key' | 'chat' {
  if (list.some(providerReady)) return 'chat';
  if (list.some((p) => p.installed)) return 'key';
  return 'install';
}

/** The job id in a 409 INSTALL_IN_PROGRESS message ("… already running (job ID)"), to follow that job instead. */
export function installJobFromConflict(code: string, message: string): string | null {
  if (code !== 'INSTALL_IN_PROGRESS') return null;
  const m = /\(job ([0-9A-Za-z-]+)\)/.exec(message);
  return m ? m[1] : null;
}

/** The line number a parser's message names ("line 3", "at line 3 column 5", "[3:5]"), if any. */
export function errorLine(message: string): number | null {
  const m = /\bline[: ]+(\d+)/i.exec(message) ?? /\[(\d+):\d+\]/.exec(message);
  return m ? Number(m[1]) : null;
}

// ---- API key scopes (docs/auth.md "Scopes") ----

export const SCOPES = [
  'projects:read', 'projects:write', 'tasks:read', 'tasks:write', 'providers:read',
  'system:update', 'orchestration:read', 'orchestration:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** What a key's owner gets when scopes are left out. */
export const DEFAULT_SCOPES: Scope[] = ['projects:read', 'projects:write', 'tasks:read', 'tasks:write', 'providers:read'];

export const SCOPE_TEXT: Record<Scope, string> = {
  'projects:read': 'Read projects, sessions and messages; search; read files; git status, diff and branches.',
  'projects:write': 'Change projects and sessions; write, create, rename and delete files; git commit, push, pull and checkout.',
  'tasks:read': 'Read automation status, tasks and runs, follow run event streams; read notifications.',
  'tasks:write': 'Start agent runs; create, change, pause, resume, cancel and delete tasks.',
  'providers:read': 'Read provider status, model lists and the masked credential list.',
  'system:update': 'Update the service itself (administrator accounts only).',
  'orchestration:read': 'Read the production agent loop (administrator accounts only).',
  'orchestration:write': 'Act on the production agent loop (administrator accounts only).',
};

export function describeScope(s: string): string {
  return (SCOPE_TEXT as Record<string, string>)[s] ?? 'Unknown scope.';
}

/** A short summary of a key's scopes for its row in the list. */
export function scopeSummary(scopes: string[]): string {
  const set = new Set(scopes);
  if (SCOPES.every((s) => set.has(s))) return 'everything';
  if (DEFAULT_SCOPES.length === set.size && DEFAULT_SCOPES.every((s) => set.has(s))) return 'work (default)';
  const readOnly = scopes.every((s) => s.endsWith(':read'));
  return (readOnly ? 'read only: ' : '') + scopes.join(', ');
}

// ---- providers ----

export interface ProviderInfo {
  id: string; installed: boolean; authenticated: boolean; version: string | null; binaryPath: string | null;
  authMethod?: string | null; authSource?: string | null; effectiveSource?: string;
}

export const NAMES: Record<string, string> = {
  claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', opencode: 'opencode', cursor: 'Cursor CLI', grok: 'Grok CLI',
};

export async function loadStatuses(): Promise<ProviderInfo[]> {
  const all = await Promise.all(PROVIDERS.map((p) => api<ProviderInfo>(`/api/providers/${p}/auth/status`).catch(() => null)));
  return all.filter((x): x is ProviderInfo => !!x);
}
