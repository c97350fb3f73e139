import { memo } from 'preact/compat';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type MessagesPage } from './api';
import { highlightIn, renderMarkdown, warmMarkdown } from './markdown';
import { navigate, sessionPath } from './router';
import { chatSocket, type SocketState } from './socket';
import { projects, useProjects } from './store';
import { formatUsage, historyItems, LiveThread, type Frame, type Item, type PermissionRequest } from './thread';
import { ToolView } from './tools';
import { PROVIDERS } from './ui';
import { VirtualList } from './vlist';

const PAGE = 200;
/** The first page is smaller, so a session opens fast; older pages are larger. */
const FIRST_PAGE = 60;

/** A new session's live state handed to the view that the URL change (to the session's address) mounts. */
const handoff = new Map<string, { live: LiveThread; mine: Set<string>; provider: string }>();
/** Tools the user chose "always allow" for, by session (this tab only). */
const alwaysAllow = new Map<string, Set<string>>();

interface Props { project: string; sessionId?: string; provider?: string; messageId?: string }

export function Conversation({ project, sessionId, provider: routeProvider, messageId }: Props) {
  const store = useProjects();
  const meta = store.find(project);
  const sessionMeta = meta?.sessions.find((s) => s.id === sessionId) ?? store.sessions.get(project)?.find((s) => s.id === sessionId);
  const handed = sessionId ? handoff.get(sessionId) : undefined;
  if (sessionId) handoff.delete(sessionId);

  const [history, setHistory] = useState<Item[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [loadError, setLoadError] = useState('');
  const [loaded, setLoaded] = useState(!sessionId);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const live = useRef<LiveThread>(handed?.live ?? new LiveThread());
  const mine = useRef<Set<string>>(handed?.mine ?? new Set()); // runs shown live in this view
  const [version, setVersion] = useState(0);
  const [sock, setSock] = useState<SocketState>('connecting');
  const [provider, setProvider] = useState(routeProvider ?? handed?.provider ?? sessionMeta?.provider ?? 'claude');
  const [model, setModel] = useState('');
  const [mode, setMode] = useState('default');
  const [notice, setNotice] = useState('');
  const offset = useRef(0);
  const pendingRequests = useRef(new Map<string, string>()); // clientRequestId -> user item key
  const frameQueued = useRef(0);
  const sid = useRef<string | null>(sessionId ?? null);
  const providerRef = useRef(provider); // the frame listener is registered once: it reads the current choice here
  providerRef.current = provider;

  useEffect(() => {
    if (routeProvider) setProvider(routeProvider);
    else if (sessionMeta?.provider) setProvider(sessionMeta.provider);
  }, [sessionMeta?.provider]);

  // history: the newest page, then (for a search hit) older pages until the message is found
  useEffect(() => {
    if (!sessionId) return;
    let cancelled = false;
    (async () => {
      try {
        let items: Item[] = [];
        let off = 0;
        let more = true;
        for (let i = 0; more && i < 25; i++) {
          const page = await api<MessagesPage>(`/api/sessions/${encodeURIComponent(sessionId)}/messages?projectName=${encodeURIComponent(project)}&limit=${i === 0 ? FIRST_PAGE : PAGE}&offset=${off}${routeProvider ? '&provider=' + encodeURIComponent(routeProvider) : ''}`);
          items = [...historyItems(page.messages), ...items];
          off += page.messages.length;
          more = page.hasMore;
          if (!messageId || items.some((it) => it.messageId === messageId)) break;
        }
        if (cancelled) return;
        offset.current = off;
        setHistory(items);
        setHasMore(more);
        setLoaded(true);
        if (messageId) setFocusKey('h:' + messageId);
      } catch (e) {
        if (!cancelled) {
          // a session just started here may not be in the history yet: its live run shows it
          if ((e as { code?: string }).code !== 'SESSION_NOT_FOUND') setLoadError((e as Error).message);
          setLoaded(true);
        }
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [sessionId]);

  const olderInFlight = useRef(false); // scroll events come faster than state updates: one page at a time
  async function loadOlder() {
    if (!sessionId || !hasMore || olderInFlight.current) return;
    olderInFlight.current = true;
    setLoadingOlder(true);
    try {
      const page = await api<MessagesPage>(`/api/sessions/${encodeURIComponent(sessionId)}/messages?projectName=${encodeURIComponent(project)}&limit=${PAGE}&offset=${offset.current}${routeProvider ? '&provider=' + encodeURIComponent(routeProvider) : ''}`);
      offset.current += page.messages.length;
      const older = historyItems(page.messages);
      setHistory((h) => [...older, ...h]);
      // the page's Markdown is rendered in idle time, newest first (those rows come into view first when scrolling up)
      warmMarkdown(older.filter((it) => it.kind === 'assistant' && it.text).map((it) => it.text).reverse());
      setHasMore(page.hasMore);
    } catch (e) {
      setNotice((e as Error).message);
    } finally {
      olderInFlight.current = false;
      setLoadingOlder(false);
    }
  }

  // live: frames of this view's runs, applied once per seq, drawn at most once per animation frame
  useEffect(() => {
    const s = chatSocket();
    setSock(s.state);
    const offState = s.onState((st) => {
      setSock(st);
      if (st === 'reconnecting' && pendingRequests.current.size > 0) {
        // the socket closed before the server acknowledged the turn: it may or may not have started; never resend
        pendingRequests.current.clear();
        sending.current = false;
        setNotice('The connection dropped while sending; if no answer appears, send the message again.');
      }
    });
    const offFrame = s.onFrame((f: Frame) => {
      const L = live.current;
      if (f.type === 'subscribed' && f.clientRequestId && pendingRequests.current.has(f.clientRequestId) && f.runId) {
        pendingRequests.current.delete(f.clientRequestId);
        mine.current.add(f.runId);
        s.adoptRun(f.runId, () => L.lastSeq(f.runId!));
      }
      if (f.type === 'subscribed' && f.runId && !mine.current.has(f.runId) && sid.current && f.sessionId === sid.current) {
        // the session's newest run: shown live only while it runs (a finished one is in the history already)
        if (f.status === 'running' || f.status === 'queued' || f.status === 'pending') {
          mine.current.add(f.runId);
        } else {
          s.send({ type: 'unsubscribe', runId: f.runId });
          return;
        }
      }
      if (f.type === 'error') {
        if (f.clientRequestId && pendingRequests.current.has(f.clientRequestId)) {
          pendingRequests.current.delete(f.clientRequestId);
          setNotice(`The message was not sent: ${f.error?.message ?? f.error?.code}`);
          sending.current = false;
        } else if (f.error?.code === 'PERMISSION_REQUEST_NOT_FOUND') {
          setNotice('That permission request is no longer open.');
        }
        return;
      }
      if (!f.runId || !mine.current.has(f.runId)) return;
      const changed = L.apply(f);
      if (f.type === 'session-created' && f.sessionId && !sid.current) {
        sid.current = f.sessionId;
        handoff.set(f.sessionId, { live: L, mine: mine.current, provider: providerRef.current });
        projects.load();
        navigate(sessionPath(project, f.sessionId, providerRef.current), true);
        return;
      }
      if (f.type === 'complete') {
        sending.current = false;
        projects.load();
      }
      if (f.type === 'permission-request' && f.requestId && sid.current && alwaysAllow.get(sid.current)?.has(f.toolName ?? '')) {
        answer(f.requestId, 'allow');
      }
      if (changed && !frameQueued.current) {
        frameQueued.current = requestAnimationFrame(() => {
          frameQueued.current = 0;
          setVersion((v) => v + 1);
        });
      }
    });
    if (sessionId && !handed) s.followSession(sessionId, () => {
      const runs = [...live.current.runs.values()];
      return runs.length ? runs[runs.length - 1].lastSeq : 0;
    });
    if (handed) for (const r of handed.mine) s.adoptRun(r, () => live.current.lastSeq(r));
    return () => {
      offState();
      offFrame();
      if (frameQueued.current) cancelAnimationFrame(frameQueued.current);
      if (!sid.current || !handoff.has(sid.current)) s.unfollowAll();
    };
  }, [sessionId]);

  const sending = useRef(false);

  function answer(requestId: string, decision: 'allow' | 'deny') {
    if (chatSocket().send({ type: 'permission-response', requestId, decision })) {
      live.current.permissions.delete(requestId);
      setVersion((v) => v + 1);
    } else {
      setNotice('Not connected; answer again once reconnected.');
    }
  }

  function send(text: string): boolean {
    if (sending.current) return false; // one tap sends once
    const msg = text.trim();
    if (!msg) return false;
    const id = 'c' + Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
    const turn: Record<string, unknown> = { type: 'turn', provider, message: msg, clientRequestId: id };
    if (sid.current) {
      turn.sessionId = sid.current;
      turn.projectName = project;
    } else {
      turn.projectName = project;
      if (model.trim()) turn.model = model.trim();
      turn.permissionMode = mode;
    }
    if (!chatSocket().send(turn)) {
      setNotice('Not connected to the server yet; try again in a moment.');
      return false;
    }
    sending.current = true;
    pendingRequests.current.set(id, 'local:' + id);
    live.current.addLocalUser(msg, 'local:' + id);
    setNotice('');
    setVersion((v) => v + 1);
    return true;
  }

  function abort() {
    for (const r of live.current.activeRuns()) chatSocket().send({ type: 'abort', runId: r });
  }

  // history drops what a live run shows itself (the answer of a turn still running when the page was opened)
  const items = useMemo(() => {
    const L = live.current;
    const cut = [...L.runs.values()].filter((r) => mine.current.has(r.runId) && r.firstAt).map((r) => Date.parse(r.firstAt!));
    const since = cut.length ? Math.min(...cut) : Infinity;
    const h = since === Infinity ? history : history.filter((it) => it.kind === 'user' || !it.timestamp || Date.parse(it.timestamp) < since - 1000);
    return [...h, ...L.items];
  }, [history, version]);

  const permissions = [...live.current.permissions.values()].filter((p) => mine.current.has(p.runId));
  const running = live.current.activeRuns().some((r) => mine.current.has(r));
  const title = sessionMeta?.title ?? (sessionId ? sessionId : 'New chat');

  return (
    <section class="conversation" aria-label="Conversation">
      <header class="conv-head">
        <div class="conv-title">
          <h1 title={title}>{title}</h1>
          <span class="muted small">{meta?.displayName ?? project}{sessionId ? ` · ${provider}` : ''}</span>
        </div>
        <SocketBadge state={sock} />
      </header>
      {!sessionId && (
        <div class="new-chat" role="group" aria-label="New session">
          <label>Provider
            <select value={provider} onChange={(e) => setProvider(e.currentTarget.value)}>
              {PROVIDERS.map((p) => <option key={p} value={p}>{p}</option>)}
            </select>
          </label>
          <label>Model<input value={model} placeholder="default" onInput={(e) => setModel(e.currentTarget.value)} /></label>
          <label>Permissions
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value)}>
              <option value="default">Ask</option>
              <option value="acceptEdits">Accept edits</option>
              <option value="bypassPermissions">Bypass</option>
            </select>
          </label>
        </div>
      )}
      {loadError && <p class="error pad-s" role="alert">{loadError}</p>}
      {!loaded ? (
        <p class="muted pad">Loading the conversation…</p>
      ) : (
        <VirtualList
          label="Messages"
          items={items}
          keyOf={(it) => it.key}
          render={(it) => <Row item={it} focused={it.key === focusKey} />}
          onNearTop={loadOlder}
          focusKey={focusKey}
          footer={
            <>
              {loadingOlder && <p class="muted small">Loading older messages…</p>}
              {running && <p class="muted small typing" aria-live="polite">The agent is working…</p>}
              {items.length === 0 && <p class="muted pad">{sessionId ? 'This session has no messages.' : 'Send a message to start the session.'}</p>}
            </>
          }
        />
      )}
      {permissions.map((p) => (
        <PermissionBanner key={p.requestId} req={p} onAnswer={(d, always) => {
          if (always && sid.current) {
            if (!alwaysAllow.has(sid.current)) alwaysAllow.set(sid.current, new Set());
            alwaysAllow.get(sid.current)!.add(p.toolName);
          }
          answer(p.requestId, d);
        }} />
      ))}
      {notice && <p class="notice pad-s" role="status">{notice}</p>}
      <Composer onSend={send} running={running} onAbort={abort} disabled={sock !== 'open'} />
    </section>
  );
}

function SocketBadge({ state }: { state: SocketState }) {
  const text = state === 'open' ? 'live' : state === 'closed' ? 'offline' : state === 'connecting' ? 'connecting' : 'reconnecting…';
  return <span class={`sock sock-${state}`} role="status" aria-label={`Connection: ${text}`}>{text}</span>;
}

function PermissionBanner({ req, onAnswer }: { req: PermissionRequest; onAnswer: (d: 'allow' | 'deny', always?: boolean) => void }) {
  const input = req.input as Record<string, unknown> | null;
  const detail = input ? String(input.file_path ?? input.command ?? input.path ?? JSON.stringify(input)).slice(0, 300) : '';
  const [busy, setBusy] = useState(false);
  const click = (d: 'allow' | 'deny', always = false) => {
    if (busy) return;
    setBusy(true);
    onAnswer(d, always);
  };
  return (
    <div class="permission" role="alertdialog" aria-label={`Permission for ${req.toolName}`}>
      <div><strong>{req.toolName}</strong> wants to run: <code>{detail}</code></div>
      <div class="row">
        <button class="primary" disabled={busy} onClick={() => click('allow')}>Allow</button>
        <button disabled={busy} onClick={() => click('allow', true)}>Always allow {req.toolName}</button>
        <button class="danger" disabled={busy} onClick={() => click('deny')}>Deny</button>
      </div>
    </div>
  );
}

function Composer({ onSend, running, onAbort, disabled }: { onSend: (t: string) => boolean; running: boolean; onAbort: () => void; disabled: boolean }) {
  const [text, setText] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const coarse = typeof matchMedia !== 'undefined' && matchMedia('(pointer: coarse)').matches;

  function submit(e?: Event) {
    e?.preventDefault();
    if (onSend(text)) setText('');
  }

  useEffect(() => {
    const a = area.current;
    if (!a) return;
    a.style.height = 'auto';
    a.style.height = Math.min(a.scrollHeight, 220) + 'px';
  }, [text]);

  return (
    <form class="composer" onSubmit={submit}>
      <textarea
        ref={area}
        rows={1}
        aria-label="Message"
        placeholder={disabled ? 'Connecting…' : 'Message the agent'}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !coarse && !e.isComposing) submit(e);
        }}
        onFocus={() => setTimeout(() => area.current?.scrollIntoView({ block: 'nearest' }), 300)}
      />
      {running ? (
        <button type="button" class="danger" onClick={onAbort}>Stop</button>
      ) : (
        <button type="submit" class="primary" disabled={disabled || !text.trim()}>Send</button>
      )}
    </form>
  );
}

const Row = memo(function Row({ item, focused }: { item: Item; focused: boolean }) {
  const cls = `msg msg-${item.kind}${focused ? ' focused' : ''}`;
  switch (item.kind) {
    case 'user':
      return <div class={cls} data-message-id={item.messageId}><div class="bubble">{item.text}</div></div>;
    case 'assistant':
      return (
        <div class={cls} data-message-id={item.messageId}>
          <Markdown text={item.text} streaming={!!item.streaming} />
          {item.usage && <div class="usage">{formatUsage(item.usage)}</div>}
        </div>
      );
    case 'thinking':
      return (
        <details class={cls}>
          <summary>Thinking</summary>
          <div class="thinking-text">{item.text}</div>
        </details>
      );
    case 'tool':
      return <div class={cls}><ToolView item={item} /></div>;
    case 'error':
      return <div class={cls} role="alert">{item.text}</div>;
    case 'usage':
      return <div class={cls}><span class="usage">{formatUsage(item.usage)}</span></div>;
    case 'status':
      return <div class={`${cls}${item.isError ? ' failed' : ''}`}>{item.text}{item.usage ? <span class="usage"> · {formatUsage(item.usage)}</span> : null}</div>;
    default:
      return item.text ? <div class={cls}>{item.text}</div> : null;
  }
});

function Markdown({ text, streaming }: { text: string; streaming: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const html = useMemo(() => renderMarkdown(text, !streaming), [text, streaming]);
  useEffect(() => {
    if (!streaming && ref.current) highlightIn(ref.current);
  }, [html, streaming]);
  return <div class="md" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
}
