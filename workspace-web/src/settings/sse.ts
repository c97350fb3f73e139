// Server-sent events over fetch, for the routes that are POSTs (EventSource only GETs): parses `event:`, `data:`
// and `id:` lines and calls `on(event, data)` for each frame. Errors answered before the stream are the usual
// envelope and are thrown with its message.
import { ApiError } from '../api';

export async function postSse(url: string, body: unknown, on: (event: string, data: any) => void, signal?: AbortSignal): Promise<void> {
  const res = await fetch(url, {
    method: 'POST', credentials: 'same-origin', signal,
    headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' }, body: JSON.stringify(body ?? {}),
  });
  if (!res.ok || !res.body) {
    let msg = res.statusText, code = `HTTP_${res.status}`;
    try {
      const j = await res.json();
      msg = j?.error?.message ?? msg;
      code = j?.error?.code ?? code;
    } catch { /* not JSON */ }
    throw new ApiError(res.status, code, msg);
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let i: number;
    while ((i = buf.search(/\r?\n\r?\n/)) >= 0) {
      const frame = buf.slice(0, i);
      buf = buf.slice(i).replace(/^\r?\n\r?\n/, '');
      parseFrame(frame, on);
    }
  }
  if (buf.trim()) parseFrame(buf, on);
}

export function parseFrame(frame: string, on: (event: string, data: any) => void) {
  let event = 'message';
  const data: string[] = [];
  for (const line of frame.split(/\r?\n/)) {
    if (line.startsWith(':')) continue;
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    const val = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
    if (field === 'event') event = val;
    else if (field === 'data') data.push(val);
  }
  if (data.length === 0) return;
  const text = data.join('\n');
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* plain text */ }
  on(event, parsed);
}
