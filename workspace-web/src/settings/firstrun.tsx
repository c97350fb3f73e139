// The first-run guide on the start page: shown while no provider is ready (installed and with a credential), it
// walks through install → key → a first chat, each step linking to where it is done.
import { useEffect, useState } from 'preact/hooks';
import { useProjects } from '../store';
import { Link } from './common';
import { firstRunStep, loadStatuses, NAMES, type ProviderInfo } from './logic';

export default function FirstRunGuide() {
  const [list, setList] = useState<ProviderInfo[] | null>(null);
  const projects = useProjects();
  useEffect(() => { loadStatuses().then(setList, () => setList(null)); }, []);
  if (!list) return null;
  const step = firstRunStep(list);
  // once a provider is ready the guide stays (for its last step) only in a tab that walked the earlier steps
  if (step !== 'chat') sessionStorage.setItem('aw.firstrun.seen', '1');
  else if (!sessionStorage.getItem('aw.firstrun.seen') || sessionStorage.getItem('aw.firstrun.done')) return null;
  const installed = list.find((p) => p.installed);
  const ready = list.find((p) => p.installed && p.authenticated);
  const target = ready ?? installed ?? list.find((p) => p.id === 'claude') ?? list[0];
  const first = projects.list?.[0];
  return (
    <section class="panel stack first-run" aria-label="Getting started">
      <h2>Getting started</h2>
      {step !== 'chat' && <p>No coding agent is ready yet. Three steps:</p>}
      <ol class="steps">
        <li class={step !== 'install' ? 'done' : ''}>
          <div><strong>Install a provider.</strong> {installed ? <>{NAMES[installed.id]} is installed{installed.version ? ` (${installed.version})` : ''}.</>
            : <>Open a provider (for example <Link href="/settings/providers/claude">Claude Code</Link>) and press Install; an administrator can do this.</>}</div>
        </li>
        <li class={step === 'chat' ? 'done' : ''}>
          <div><strong>Give it a key.</strong> {ready ? <>{NAMES[ready.id]} is signed in.</>
            : <>Save an API key for <Link href={`/settings/providers/${target.id}`}>{NAMES[target.id] ?? target.id}</Link> (or sign in with the CLI's own login).</>}</div>
        </li>
        <li>
          <div><strong>Start a first chat.</strong> {step === 'chat'
            ? (first ? <>Open <Link href={`/projects/${encodeURIComponent(first.name)}/new`}>a new chat in {first.displayName || first.name}</Link>.</> : <>Add a project folder with <strong>+ Project</strong>, then start a chat in it.</>)
            : 'Once a provider is ready.'}</div>
        </li>
      </ol>
      {step === 'chat' && <div class="row"><button class="link" onClick={() => { sessionStorage.setItem('aw.firstrun.done', '1'); setList([...list]); }}>Hide this guide</button></div>}
    </section>
  );
}
