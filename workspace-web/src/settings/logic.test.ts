import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPES, SCOPES, describeScope, errorLine, firstRunStep, installJobFromConflict, scopeSummary } from './logic';
import { describeInterval, formatInZone, previewSchedule } from './schedule';

const iso = (d: Date[]) => d.map((x) => x.toISOString());

describe('schedule preview', () => {
  const now = new Date('2026-03-27T10:17:30Z');

  it('cron: the next matches in the chosen zone', () => {
    // 09:00 in Paris on weekdays; 2026-03-27 is a Friday, the clocks move to summer time on Sunday 29 March
    const p = previewSchedule({ kind: 'cron', expression: '0 9 * * 1-5', timezone: 'Europe/Paris' }, now, 3);
    expect(p.error).toBeNull();
    expect(iso(p.times)).toEqual(['2026-03-30T07:00:00.000Z', '2026-03-31T07:00:00.000Z', '2026-04-01T07:00:00.000Z']);
    expect(formatInZone(p.times[0], 'Europe/Paris')).toContain('09:00');
  });

  it('cron: UTC by default, every 15 minutes', () => {
    const p = previewSchedule({ kind: 'cron', expression: '*/15 * * * *' }, now, 3);
    expect(iso(p.times)).toEqual(['2026-03-27T10:30:00.000Z', '2026-03-27T10:45:00.000Z', '2026-03-27T11:00:00.000Z']);
  });

  it('cron: day of month OR day of week when both are given (Unix cron)', () => {
    // the 1st of the month or any Monday, at midnight UTC
    const p = previewSchedule({ kind: 'cron', expression: '0 0 1 * 1' }, now, 3);
    expect(iso(p.times)).toEqual(['2026-03-30T00:00:00.000Z', '2026-04-01T00:00:00.000Z', '2026-04-06T00:00:00.000Z']);
  });

  it('cron: refuses six fields, bad zones and nonsense with a message', () => {
    expect(previewSchedule({ kind: 'cron', expression: '0 0 9 * * *' }, now).error).toMatch(/five fields/);
    expect(previewSchedule({ kind: 'cron', expression: '0 9 * * *', timezone: 'Mars/Olympus' }, now).error).toMatch(/Unknown time zone/);
    expect(previewSchedule({ kind: 'cron', expression: '61 9 * * *' }, now).error).toMatch(/Not a valid schedule/);
  });

  it('interval: aligned on startAt, or one interval after now', () => {
    const p = previewSchedule({ kind: 'interval', everySeconds: 3600, startAt: '2026-03-27T08:00:00Z' }, now, 2);
    expect(iso(p.times)).toEqual(['2026-03-27T11:00:00.000Z', '2026-03-27T12:00:00.000Z']);
    const q = previewSchedule({ kind: 'interval', everySeconds: 600 }, now, 1);
    expect(iso(q.times)).toEqual(['2026-03-27T10:27:30.000Z']);
    expect(previewSchedule({ kind: 'interval', everySeconds: 30 }, now).error).toMatch(/one minute/);
  });

  it('once: its moment, or now when it has passed', () => {
    expect(iso(previewSchedule({ kind: 'once', at: '2026-03-28T00:00:00Z' }, now).times)).toEqual(['2026-03-28T00:00:00.000Z']);
    expect(iso(previewSchedule({ kind: 'once', at: '2026-03-01T00:00:00Z' }, now).times)).toEqual([now.toISOString()]);
    expect(previewSchedule({ kind: 'once', at: '' }, now).error).toBeTruthy();
  });

  it('describes intervals', () => {
    expect(describeInterval(5400)).toBe('every 1 h 30 min');
    expect(describeInterval(86400)).toBe('every 1 d');
  });
});

describe('scopes', () => {
  it('every scope is explained', () => {
    for (const s of SCOPES) expect(describeScope(s)).not.toBe('Unknown scope.');
    expect(describeScope('nope')).toBe('Unknown scope.');
  });
  it('summaries', () => {
    expect(scopeSummary([...DEFAULT_SCOPES])).toBe('work (default)');
    expect(scopeSummary([...SCOPES])).toBe('everything');
    expect(scopeSummary(['projects:read', 'tasks:read'])).toBe('read only: projects:read, tasks:read');
    expect(scopeSummary(['tasks:write'])).toBe('tasks:write');
  });
});

describe('hints from messages', () => {
  it('finds the running install job in a conflict', () => {
    expect(installJobFromConflict('INSTALL_IN_PROGRESS', 'an install of claude is already running (job 1b2c-3d)')).toBe('1b2c-3d');
    expect(installJobFromConflict('CONFLICT', 'x (job 1)')).toBeNull();
  });
  it('finds the line of a parse error', () => {
    expect(errorLine('Unexpected character at line 3 column 5')).toBe(3);
    expect(errorLine('line: 12')).toBe(12);
    expect(errorLine('no position')).toBeNull();
  });
  it('first-run steps', () => {
    expect(firstRunStep([{ installed: false, authenticated: false }])).toBe('install');
    expect(firstRunStep([{ installed: true, authenticated: false }])).toBe('key');
    expect(firstRunStep([{ installed: true, authenticated: false }, { installed: true, authenticated: true }])).toBe('chat');
  });
});
