// The search palette (Ctrl+K): full-text search over every conversation; choosing a hit opens its session at the
// message found. Loaded lazily.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type SearchResult } from './api';
import { navigate, sessionPath } from './router';
import { Modal, relativeTime } from './ui';

export default function SearchPalette({ onClose }: { onClose: () => void }) {
  const [q, setQ] = useState('');
  const [results, setResults] = useState<SearchResult[]>([]);
  const [total, setTotal] = useState(0);
  const [sel, setSel] = useState(0);
  const [error, setError] = useState('');
  const ctrl = useRef<AbortController | null>(null);

  useEffect(() => {
    const term = q.trim();
    if (!/[\p{L}\p{N}_]/u.test(term)) {
      setResults([]);
      setTotal(0);
      return;
    }
    const t = setTimeout(async () => {
      ctrl.current?.abort();
      const c = new AbortController();
      ctrl.current = c;
      try {
        const r = await api<{ results: SearchResult[]; total: number }>(`/api/search/conversations?q=${encodeURIComponent(term)}&limit=30`, { signal: c.signal });
        setResults(r.results);
        setTotal(r.total);
        setSel(0);
        setError('');
      } catch (e) {
        if ((e as Error).name !== 'AbortError') setError((e as Error).message);
      }
    }, 180);
    return () => clearTimeout(t);
  }, [q]);

  function open(r: SearchResult) {
    if (!r.projectName) return;
    onClose();
    navigate(sessionPath(r.projectName, r.sessionId, r.provider, r.messageId));
  }

  return (
    <Modal title="Search conversations" onClose={onClose} wide>
      <input
        class="palette-input"
        type="search"
        autoFocus
        aria-label="Search conversations"
        placeholder="Words to find"
        value={q}
        onInput={(e) => setQ(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') { e.preventDefault(); setSel((s) => Math.min(s + 1, results.length - 1)); }
          if (e.key === 'ArrowUp') { e.preventDefault(); setSel((s) => Math.max(s - 1, 0)); }
          if (e.key === 'Enter' && results[sel]) { e.preventDefault(); open(results[sel]); }
        }}
      />
      {error && <p class="error" role="alert">{error}</p>}
      {q.trim() && <p class="muted small" role="status">{total} matching messages</p>}
      <ul class="results" role="listbox" aria-label="Results">
        {results.map((r, i) => (
          <li key={r.provider + r.messageId} role="option" aria-selected={i === sel}>
            <button class={i === sel ? 'hit sel' : 'hit'} onClick={() => open(r)} onMouseEnter={() => setSel(i)}>
              <span class="hit-title"><span class={`badge p-${r.provider}`}>{r.provider}</span> {r.sessionTitle} <span class="muted small">{relativeTime(r.timestamp)}</span></span>
              <span class="snippet">{snippet(r.snippet)}</span>
            </button>
          </li>
        ))}
      </ul>
    </Modal>
  );
}

/** The snippet with its « » marks as <mark> (text only: no HTML from the server is interpreted). */
function snippet(s: string) {
  const parts = s.split(/(«[^»]*»)/g);
  return parts.map((p, i) => (p.startsWith('«') && p.endsWith('»') ? <mark key={i}>{p.slice(1, -1)}</mark> : p));
}
