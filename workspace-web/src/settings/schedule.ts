// The schedule preview of the task form (unit-tested in logic.test.ts): the next run times as the server computes
// them (docs/tasks.md), cron through croner in the chosen zone.
import { Cron } from 'croner';

// ---- schedules (docs/tasks.md) ----

export type Schedule =
  | { kind: 'once'; at: string }
  | { kind: 'interval'; everySeconds: number; startAt?: string }
  | { kind: 'cron'; expression: string; timezone?: string };

export interface Preview { times: Date[]; error: string | null }

/** Is `tz` a zone the browser knows (IANA id or UTC)? */
export function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The next `n` run times of a schedule after `now`, as the server computes them: `once` at its moment (a past one
 * runs at once); `interval` on `startAt + k·every` (or `every` after now without `startAt`); `cron` with five Unix
 * fields in the zone (day of month and day of week ORed when both are restricted, as cron-utils does).
 */
export function previewSchedule(s: Schedule, now: Date, n = 5): Preview {
  try {
    switch (s.kind) {
      case 'once': {
        const t = Date.parse(s.at);
        if (Number.isNaN(t)) return { times: [], error: 'Pick a date and time.' };
        return { times: [new Date(Math.max(t, now.getTime()))], error: null };
      }
      case 'interval': {
        if (!Number.isInteger(s.everySeconds) || s.everySeconds < 60) return { times: [], error: 'The interval is at least one minute.' };
        if (s.everySeconds > 31_622_400) return { times: [], error: 'The interval is at most 366 days.' };
        const step = s.everySeconds * 1000;
        let first: number;
        if (s.startAt) {
          const start = Date.parse(s.startAt);
          if (Number.isNaN(start)) return { times: [], error: 'The start time is not a date.' };
          first = start >= now.getTime() ? start : start + Math.ceil((now.getTime() - start) / step) * step;
        } else {
          first = now.getTime() + step;
        }
        return { times: Array.from({ length: n }, (_, i) => new Date(first + i * step)), error: null };
      }
      case 'cron': {
        const expr = s.expression.trim();
        const fields = expr.split(/\s+/).filter(Boolean);
        if (fields.length !== 5) return { times: [], error: 'A cron expression has five fields: minute hour day-of-month month day-of-week.' };
        const tz = s.timezone?.trim() || 'UTC';
        if (!validZone(tz)) return { times: [], error: `Unknown time zone: ${tz}` };
        const job = new Cron(expr, { timezone: tz, mode: '5-part', domAndDow: false, paused: true });
        const times = job.nextRuns(n, now);
        job.stop();
        if (times.length === 0) return { times: [], error: 'This expression never matches.' };
        return { times, error: null };
      }
    }
  } catch (e) {
    return { times: [], error: `Not a valid schedule: ${(e as Error).message}` };
  }
}

/** A time as read in zone `tz` (for the preview list). */
export function formatInZone(d: Date, tz: string): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: tz, weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short',
  }).format(d);
}

/** `datetime-local` input value (a wall time in the browser's zone) to an ISO instant with offset. */
export function localInputToIso(v: string): string {
  const t = new Date(v);
  return Number.isNaN(t.getTime()) ? '' : t.toISOString();
}

/** An ISO instant to a `datetime-local` value in the browser's zone. */
export function isoToLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const p = (x: number) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** "every 1 h 30 min" from seconds. */
export function describeInterval(sec: number): string {
  const parts: string[] = [];
  const d = Math.floor(sec / 86400), h = Math.floor((sec % 86400) / 3600), m = Math.floor((sec % 3600) / 60), s = sec % 60;
  if (d) parts.push(`${d} d`);
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (s) parts.push(`${s} s`);
  return 'every ' + (parts.join(' ') || '0 s');
}

export function describeSchedule(s: Schedule): string {
  switch (s.kind) {
    case 'once': return `once at ${new Date(s.at).toLocaleString()}`;
    case 'interval': return describeInterval(s.everySeconds);
    case 'cron': return `cron ${s.expression} (${s.timezone || 'UTC'})`;
  }
}
