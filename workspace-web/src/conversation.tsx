import { memo } from 'preact/compat';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type MessagesPage } from './api';
import { highlightIn, renderMarkdown, warmMarkdown } from './markdown';
import { navigate, sessionPath } from './router';
import { chatSocket, type SocketState } from './socket';
import { projects, useProjects } from './store';
import { claimChat, type ChatHooks } from './livechat';
import { formatUsage, historyItems, type Item, type PermissionRequest } from './thread';
import { agentChangedPaths, ToolView } from './tools';
import { setAgentChanged } from './workspace/agentchanged';
import { projectRelative } from './workspace/openfile';
import { PROVIDERS } from './ui';
import { VirtualList } from './vlist';

const PAGE = 200;
/** The first page is smaller, so a session opens fast; older pages are larger. */
const FIRST_PAGE = 60;

/** A tool call's changed paths, worked out once per item (a patch's text is not searched again every frame). */
const changedPaths = new WeakMap<Item, string[]>();
function changedPathsOf(it: Item): string[] {
  // a running call's item is replaced when its result arrives, so a cached answer never goes stale
  let paths = changedPaths.get(it);
  if (!paths) changedPaths.set(it, (paths = agentChangedPaths(it)));
  return paths;
}

interface Props { project: string; sessionId?: string; provider?: string; messageId?: string }

/** What every chat does when its session is created or a run finishes, whichever view shows it then. */
const chatHooks: ChatHooks = {
  sessionCreated: (chat, id) => {
    projects.load();
    // the new chat moves to its session's address; the view mounted there takes this chat over (claimChat)
    navigate(sessionPath(chat.project, id, chat.provider), true);
  },
  runFinished: () => { projects.load(); },
};

export function Conversation({ project, sessionId, provider: routeProvider, messageId }: Props) {
  const store = useProjects();
  const meta = store.find(project);
  const sessionMeta = meta?.sessions.find((s) => s.id === sessionId) ?? store.sessions.get(project)?.find((s) => s.id === sessionId);
  // the live chat: taken over from the new chat that created this session, or a new one (see livechat.ts)
  const [chat] = useState(() => claimChat(chatSocket(), project, sessionId, routeProvider ?? sessionMeta?.provider ?? 'claude', chatHooks));

  const [history, setHistory] = useState<Item[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [loadError, setLoadError] = useState('');
  const [loaded, setLoaded] = useState(!sessionId);
  const [focusKey, setFocusKey] = useState<string | null>(null);
  const [, setVersion] = useState(0);
  const [sock, setSock] = useState<SocketState>('connecting');
  const [provider, setProviderState] = useState(routeProvider ?? chat.provider);
  const setProvider = (p: string) => {
    chat.provider = p;
    setProviderState(p);
  };
  const [model, setModel] = useState('');
  const [mode, setMode] = useState('default');
  const offset = useRef(0);
  const frameQueued = useRef(0);

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
      chat.setNotice((e as Error).message);
    } finally {
      olderInFlight.current = false;
      setLoadingOlder(false);
    }
  }

  // live: the chat applies its runs' frames (also while no view shows it); this view redraws at most once per
  // animation frame
  useEffect(() => {
    const s = chatSocket();
    setSock(s.state);
    const offState = s.onState(setSock);
    const offChat = chat.subscribe(() => {
      if (!frameQueued.current) {
        frameQueued.current = requestAnimationFrame(() => {
          frameQueued.current = 0;
          setVersion((v) => v + 1);
        });
      }
    });
    setVersion((v) => v + 1); // what was applied between the render and this effect
    return () => {
      offState();
      offChat();
      if (frameQueued.current) cancelAnimationFrame(frameQueued.current);
      chat.detach();
    };
  }, [chat]);

  function send(text: string): boolean {
    return chat.send(text, { model, permissionMode: mode });
  }

  // history drops what a live run shows itself (the answer of a turn still running when the page was opened)
  const items = useMemo(() => {
    const L = chat.live;
    const cut = [...L.runs.values()].filter((r) => chat.mine.has(r.runId) && r.firstAt).map((r) => Date.parse(r.firstAt!));
    const since = cut.length ? Math.min(...cut) : Infinity;
    const h = since === Infinity ? history : history.filter((it) => it.kind === 'user' || !it.timestamp || Date.parse(it.timestamp) < since - 1000);
    return [...h, ...L.items];
  }, [history, chat.version]);

  // the files this session's agent changed, for the file tree and the git panel to mark (workspace/agentchanged.ts)
  const root = meta?.fullPath;
  useEffect(() => {
    const paths = new Set<string>();
    for (const it of items) {
      if (it.kind !== 'tool') continue;
      for (const p of changedPathsOf(it)) {
        const rel = projectRelative(p, root);
        if (rel) paths.add(rel);
      }
    }
    setAgentChanged(project, paths);
  }, [items, root]);
  useEffect(() => () => setAgentChanged(project, new Set()), [project]);

  const permissions = [...chat.live.permissions.values()].filter((p) => chat.mine.has(p.runId));
  const running = chat.running();
  const notice = chat.notice;
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
        <PermissionBanner key={p.requestId} req={p} onAnswer={(d, always) => chat.answer(p.requestId, d, always ? { toolName: p.toolName } : undefined)} />
      ))}
      {notice && <p class="notice pad-s" role="status">{notice}</p>}
      <Composer onSend={send} running={running} onAbort={() => chat.abort()} disabled={sock !== 'open'} />
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
