import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

/** A modal dialog (native <dialog>: focus trapping and Esc come with it). */
export function Modal({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const close = () => onClose();
    d.addEventListener('close', close);
    return () => d.removeEventListener('close', close);
  }, []);
  return (
    <dialog ref={ref} class={`modal${wide ? ' wide' : ''}`} aria-label={title}>
      <header><h2>{title}</h2><button class="icon" aria-label="Close" onClick={() => ref.current?.close()}>✕</button></header>
      {children}
    </dialog>
  );
}

/** Asks for one line of text. */
export function PromptDialog({ title, label, initial, onSubmit, onClose }: { title: string; label: string; initial: string; onSubmit: (v: string) => Promise<void>; onClose: () => void }) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <Modal title={title} onClose={onClose}>
      <form
        class="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          if (busy) return;
          setBusy(true);
          try {
            await onSubmit(value);
            onClose();
          } catch (err) {
            setError((err as Error).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        <label>{label}<input value={value} autoFocus onInput={(e) => setValue(e.currentTarget.value)} maxLength={200} /></label>
        {error && <p class="error" role="alert">{error}</p>}
        <div class="row end"><button type="button" onClick={onClose}>Cancel</button><button class="primary" type="submit" disabled={busy}>Save</button></div>
      </form>
    </Modal>
  );
}

export function relativeTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((Date.now() - t) / 1000);
  if (s < 60) return 'now';
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  if (s < 86400 * 30) return `${Math.floor(s / 86400)}d`;
  return new Date(t).toLocaleDateString();
}

export const PROVIDERS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'cursor', 'grok'] as const;
