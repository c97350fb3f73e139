// "Open in editor" for a path a tool call touched (tools.tsx). Part of the main bundle, so it stays tiny: it only
// asks the workspace (frame.tsx) to open the path; the workspace makes it relative to the project folder.

/** Asks the workspace of the current project to open a file in its editor. */
export function openFileInWorkspace(path: string) {
  window.dispatchEvent(new CustomEvent('aw-open-file', { detail: path }));
}

export function OpenInEditor({ path }: { path: string }) {
  if (!path || typeof path !== 'string' || path.includes('\n')) return null;
  return (
    <button class="link small" onClick={() => openFileInWorkspace(path)}>Open {path.split('/').pop()} in the editor</button>
  );
}

/** A tool's path made relative to the project folder; null when it lies outside. */
export function projectRelative(path: string, projectRoot: string | undefined): string | null {
  if (!path.startsWith('/')) return path.replace(/^\.\//, '');
  if (!projectRoot) return null;
  const root = projectRoot.replace(/\/+$/, '');
  return path.startsWith(root + '/') ? path.slice(root.length + 1) : null;
}
