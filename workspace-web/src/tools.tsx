// Tool calls drawn by kind, whatever the provider calls them: a shell command with its output, an edit as a diff,
// a file written, a read, a search, a todo list or plan; anything else as its name and JSON input. Large outputs are
// cut (the rest on demand) so that a huge log or diff never freezes the page.
import { useState } from 'preact/hooks';
import type { Item } from './thread';
import { lineDiff } from './diff';
import { OpenInEditor } from './workspace/openfile';

const CUT = 4000;

type Kind = 'shell' | 'edit' | 'write' | 'read' | 'search' | 'todo' | 'other';

export function toolKind(name: string): Kind {
  const n = name.toLowerCase();
  if (['bash', 'shell', 'exec_command', 'run_shell_command', 'local_shell', 'terminal', 'command'].includes(n) || n.includes('shell')) return 'shell';
  if (['edit', 'multiedit', 'apply_patch', 'replace', 'str_replace', 'edit_file', 'patch'].includes(n)) return 'edit';
  if (['write', 'write_file', 'create_file'].includes(n)) return 'write';
  if (['read', 'read_file', 'view', 'cat', 'read_many_files'].includes(n)) return 'read';
  if (['grep', 'glob', 'search', 'search_file_content', 'find', 'ls', 'list_directory', 'websearch', 'web_search', 'webfetch'].includes(n)) return 'search';
  if (['todowrite', 'update_plan', 'todo_write', 'exitplanmode', 'plan'].includes(n)) return 'todo';
  return 'other';
}

/**
 * The files a tool call changed, as the call names them (absolute or relative): an edit's or write's path, the files
 * of an apply_patch text (`*** Add File: x`, `*** Update File: x`, `*** Delete File: x`, `*** Move to: y`), and the
 * `changes[].path` of codex's file_change. Nothing for a failed call; a call still running counts (it is writing).
 * Only what the calls say: a shell command that writes files is not seen.
 */
export function agentChangedPaths(item: Item): string[] {
  if (item.kind !== 'tool' || item.isError) return [];
  const o = obj(item.input);
  const out: string[] = [];
  if (Array.isArray(o.changes)) {
    for (const c of o.changes) if (c && typeof c.path === 'string' && c.path) out.push(c.path);
  }
  const kind = toolKind(item.toolName ?? '');
  if (kind === 'edit' || kind === 'write') {
    const path = pick(o, 'file_path', 'path', 'filePath');
    if (path && !path.includes('\n')) out.push(path);
    const patch = typeof item.input === 'string' ? item.input : pick(o, 'patch', 'input');
    for (const m of patch.matchAll(/^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm)) out.push(m[1].trim());
  }
  return out;
}

function obj(input: unknown): Record<string, any> {
  return input && typeof input === 'object' ? (input as Record<string, any>) : {};
}

function pick(o: Record<string, any>, ...names: string[]): string {
  for (const n of names) {
    const v = o[n];
    if (typeof v === 'string' && v) return v;
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(' ');
  }
  return '';
}

function Output({ text, error }: { text: string | null | undefined; error?: boolean }) {
  const [all, setAll] = useState(false);
  if (text == null || text === '') return null;
  const long = text.length > CUT;
  return (
    <div class={error ? 'tool-out error' : 'tool-out'}>
      <pre tabIndex={0}>{all || !long ? text : text.slice(0, CUT)}</pre>
      {long && !all && <button class="link" onClick={() => setAll(true)}>Show all ({text.length.toLocaleString('en')} characters)</button>}
    </div>
  );
}

export function ToolView({ item }: { item: Item }) {
  const name = item.toolName ?? 'tool';
  const kind = toolKind(name);
  const o = obj(item.input);
  const pending = item.output == null && !item.isError;
  const status = pending ? <span class="tool-status" aria-label="running">…</span> : item.isError ? <span class="tool-status err">failed</span> : null;
  switch (kind) {
    case 'shell': {
      const cmd = pick(o, 'command', 'cmd', 'script') || (typeof item.input === 'string' ? item.input : '');
      return (
        <div class="tool shell" data-tool={name}>
          <div class="tool-head"><span class="tool-name">{name}</span>{status}</div>
          <pre tabIndex={0} class="cmd">$ {cmd}</pre>
          <Output text={item.output} error={item.isError} />
        </div>
      );
    }
    case 'edit': {
      const path = pick(o, 'file_path', 'path', 'filePath');
      const patch = pick(o, 'patch', 'input');
      const edits: { old: string; new: string }[] = Array.isArray(o.edits)
        ? o.edits.map((e: any) => ({ old: String(e.old_string ?? ''), new: String(e.new_string ?? '') }))
        : [{ old: pick(o, 'old_string', 'oldString', 'old_str'), new: pick(o, 'new_string', 'newString', 'new_str', 'content') }];
      return (
        <details class="tool edit" data-tool={name} open>
          <summary class="tool-head"><span class="tool-name">{name}</span> <code>{path}</code>{status}</summary>
          <OpenInEditor path={path} />
          {patch ? <pre tabIndex={0} class="diff">{patch.slice(0, 200_000)}</pre> : edits.map((e, i) => <Diff key={i} a={e.old} b={e.new} />)}
          {item.isError && <Output text={item.output} error />}
        </details>
      );
    }
    case 'write': {
      const path = pick(o, 'file_path', 'path', 'filePath');
      const content = pick(o, 'content', 'text');
      return (
        <details class="tool write" data-tool={name}>
          <summary class="tool-head"><span class="tool-name">{name}</span> <code>{path}</code>{status}</summary>
          <OpenInEditor path={path} />
          <Output text={content} />
          {item.isError && <Output text={item.output} error />}
        </details>
      );
    }
    case 'read': {
      const path = pick(o, 'file_path', 'path', 'absolute_path', 'paths');
      return (
        <details class="tool read" data-tool={name}>
          <summary class="tool-head"><span class="tool-name">{name}</span> <code>{path}</code>{status}</summary>
          <Output text={item.output} error={item.isError} />
        </details>
      );
    }
    case 'search': {
      const q = pick(o, 'pattern', 'query', 'glob', 'path', 'url');
      return (
        <details class="tool search" data-tool={name}>
          <summary class="tool-head"><span class="tool-name">{name}</span> <code>{q}</code>{status}</summary>
          <Output text={item.output} error={item.isError} />
        </details>
      );
    }
    case 'todo': {
      const todos: any[] = Array.isArray(o.todos) ? o.todos : Array.isArray(o.plan) ? o.plan : [];
      return (
        <div class="tool todo" data-tool={name}>
          <div class="tool-head"><span class="tool-name">{name === 'ExitPlanMode' ? 'Plan' : 'Todo list'}</span>{status}</div>
          {todos.length > 0 ? (
            <ul class="todos">
              {todos.map((t, i) => {
                const st = String(t.status ?? '');
                return <li key={i} class={`todo-${st}`}><span aria-hidden="true">{st === 'completed' ? '☑' : st === 'in_progress' ? '◐' : '☐'}</span> {String(t.content ?? t.step ?? t.text ?? '')}</li>;
              })}
            </ul>
          ) : (
            <pre tabIndex={0}>{pick(o, 'plan') || JSON.stringify(item.input, null, 2)}</pre>
          )}
        </div>
      );
    }
    default:
      return (
        <details class="tool other" data-tool={name}>
          <summary class="tool-head"><span class="tool-name">{name}</span>{status}</summary>
          <pre tabIndex={0}>{JSON.stringify(item.input, null, 2)?.slice(0, 20_000)}</pre>
          <Output text={item.output} error={item.isError} />
        </details>
      );
  }
}

function Diff({ a, b }: { a: string; b: string }) {
  const lines = lineDiff(a, b);
  if (lines.length === 0) return null;
  return (
    <pre tabIndex={0} class="diff" aria-label="Changes">
      {lines.map((l, i) => (
        <span key={i} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : 'ctx'}>{l.op === '=' ? ' ' : l.op} {l.text}{'\n'}</span>
      ))}
    </pre>
  );
}
