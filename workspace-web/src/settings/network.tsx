// Network (administrators): the LAN addresses with a QR code for a phone, UPnP port mapping, a public tunnel with
// its URL and QR code, and what exposing the service means.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorText, useAction, useResource } from './common';
import { Qr } from './qr';

interface Endpoints { endpoints: string[]; port: number }
interface Snapshot { upnp: { active: boolean; externalIp: string | null; mappedPort: number | null }; tunnel: { active: boolean; provider: string | null; url: string | null } }

export default function NetworkPage({ admin }: { admin: boolean }) {
  const eps = useResource<Endpoints>(admin ? '/api/network/endpoints' : null);
  const snap = useResource<Snapshot>(admin ? '/api/network/external' : null);
  const [shown, setShown] = useState<string | null>(null);
  const act = useAction();
  if (!admin) return <p>Only administrators change network settings.</p>;
  const s = snap.data;
  const call = (path: string, method: string) => act.run(async () => { await api(path, { method, body: method === 'POST' ? {} : undefined }); snap.reload(); });
  const upnpOff = act.busy || !s;
  return (
    <div class="stack">
      <p class="warn" role="note"><strong>Careful:</strong> whoever reaches this service and signs in can run agents and shell commands on this machine with your files. Open it to the LAN or the internet only with strong passwords, and close it again when you are done.</p>
      <section class="panel stack" aria-label="On this network">
        <h2>On this network</h2>
        <ErrorText message={eps.error} />
        {eps.data && eps.data.endpoints.length === 0 && <p class="muted">The service listens on this machine only (loopback). Start it with <code>--host 0.0.0.0</code> to reach it from the LAN.</p>}
        <ul>{(eps.data?.endpoints ?? []).map((u) => <li key={u}><a href={u}>{u}</a> <button class="link" onClick={() => setShown(shown === u ? null : u)}>QR code</button></li>)}</ul>
        {shown && <Qr text={shown} label={`QR code for ${shown}`} />}
      </section>
      <section class="panel stack" aria-label="UPnP">
        <h2>Router port mapping (UPnP)</h2>
        <p>{s?.upnp.active ? <>Mapped: port {s.upnp.mappedPort} at {s.upnp.externalIp ?? 'the router'}.</> : 'Not mapped.'}</p>
        <div class="row">
          {s?.upnp.active ? <button disabled={upnpOff} onClick={() => call('/api/network/upnp', 'DELETE')}>Remove mapping</button>
            : <button disabled={upnpOff} onClick={() => call('/api/network/upnp', 'POST')}>Map the port</button>}
        </div>
      </section>
      <section class="panel stack" aria-label="Tunnel">
        <h2>Public tunnel</h2>
        <p class="muted small">Uses cloudflared (or ngrok) to give the service a public https address — this also makes Web Push work on phones.</p>
        {s?.tunnel.active && s.tunnel.url ? (
          <>
            <p>Open at <a href={s.tunnel.url}>{s.tunnel.url}</a> ({s.tunnel.provider})</p>
            <Qr text={s.tunnel.url} label={`QR code for ${s.tunnel.url}`} />
            <div class="row"><button class="danger" disabled={act.busy} onClick={() => call('/api/network/tunnel', 'DELETE')}>Close the tunnel</button></div>
          </>
        ) : <div class="row"><button disabled={act.busy || !s} onClick={() => call('/api/network/tunnel', 'POST')}>{act.busy ? 'Opening…' : 'Open a tunnel'}</button></div>}
      </section>
      <ErrorText message={act.error || snap.error} />
    </div>
  );
}
