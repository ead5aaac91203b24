import { useState } from 'preact/hooks';
import { api, type ActivityDay, type ActivityStats, type Environment, type Project } from './api';
import { Alert, Card, DataTable, useLoad, when } from './ui';

/** The project at a glance: users per environment (the user lists' totals), its plan, and the environment's activity. */
export function Overview({ project, env }: { project: Project; env: Environment }) {
  const counts = useLoad(
    () => Promise.all([api.listUsers(project.id, 'production', { limit: 1 }), api.listUsers(project.id, 'sandbox', { limit: 1 })]),
    [project.id],
  );
  const [production, sandbox] = counts.data ?? [];
  const limit = typeof project.userLimit === 'number' ? project.userLimit.toLocaleString() : 'plan default';
  return (
    <div class="stack">
      <Card title="Overview">
        <div class="stats">
          <a class="stat" href={`#/projects/${project.id}/production/users`}>
            <span class="stat-value">{production ? production.total.toLocaleString() : '…'}</span>
            <span class="stat-label">Production users</span>
          </a>
          <a class="stat" href={`#/projects/${project.id}/sandbox/users`}>
            <span class="stat-value">{sandbox ? sandbox.total.toLocaleString() : '…'}</span>
            <span class="stat-label">Sandbox users</span>
          </a>
          <div class="stat">
            <span class="stat-value">{project.plan}</span>
            <span class="stat-label">Plan (user limit: {limit})</span>
          </div>
        </div>
        <p class="muted">
          Project id <code>{project.id}</code> · created {when(project.createdAt)}
        </p>
      </Card>
      <Activity project={project} env={env} />
    </div>
  );
}

const PERIODS = [7, 14, 30, 90];

/** The figures drawn as bars, in this order and colour (the legend and the table say the same). */
const SERIES = [
  { key: 'signIns', label: 'Sign-ins', className: 'bar-sign-ins' },
  { key: 'signUps', label: 'Sign-ups', className: 'bar-sign-ups' },
  { key: 'signInFailures', label: 'Failed sign-ins', className: 'bar-failures' },
] as const;

function Activity({ project, env }: { project: Project; env: Environment }) {
  const [days, setDays] = useState(14);
  const stats = useLoad(() => api.activityStats(project.id, env, days), [project.id, env, days]);
  const envName = env === 'production' ? 'Production' : 'Sandbox';
  return (
    <Card
      title={`Activity · ${envName}`}
      actions={
        <label class="period">
          <span>Period</span>
          <select value={String(days)} onChange={(e) => setDays(Number(e.currentTarget.value))}>
            {PERIODS.map((n) => (
              <option key={n} value={String(n)}>
                Last {n} days
              </option>
            ))}
          </select>
        </label>
      }
    >
      {stats.error ? <Alert>{stats.error}</Alert> : null}
      {stats.data ? <ActivityFigures stats={stats.data} envName={envName} /> : <p class="muted">Loading…</p>}
      <p class="hint">
        UTC days, today so far last. Sign-ins, sign-ups and failed sign-ins come from the audit log; rate-limited requests are the 429 answers to requests with this
        environment's API key (each API instance stores its count every 15 seconds).
      </p>
    </Card>
  );
}

function ActivityFigures({ stats, envName }: { stats: ActivityStats; envName: string }) {
  const { totals } = stats;
  return (
    <>
      <div class="stats" aria-live="polite">
        <Figure value={totals.signIns} label="Sign-ins" />
        <Figure value={totals.signUps} label="Sign-ups" />
        <Figure value={totals.signInFailures} label="Failed sign-ins" />
        <Figure value={totals.rateLimited} label="Rate-limited requests" tone={totals.rateLimited > 0 ? 'warn' : undefined} />
      </div>
      <BarChart days={stats.days} envName={envName} />
      <details class="chart-table">
        <summary>Show the figures as a table</summary>
        <DataTable
          caption={`${envName} activity per day`}
          headers={['Day', 'Sign-ins', 'Sign-ups', 'Failed sign-ins', 'Rate-limited']}
          empty="No days."
          rows={[...stats.days].reverse().map((d) => (
            <tr key={d.day}>
              <td>{dayLabel(d.day)}</td>
              <td>{d.signIns}</td>
              <td>{d.signUps}</td>
              <td>{d.signInFailures}</td>
              <td>{d.rateLimited}</td>
            </tr>
          ))}
        />
      </details>
    </>
  );
}

function Figure({ value, label, tone }: { value: number; label: string; tone?: 'warn' }) {
  return (
    <div class={tone ? `stat stat-${tone}` : 'stat'}>
      <span class="stat-value">{value.toLocaleString()}</span>
      <span class="stat-label">{label}</span>
    </div>
  );
}

/** Each day takes 4 units of the plot's width: three bars of 1 and a gap; heights are 0..100. */
const SLOT = 4;

/**
 * Grouped bars per day, in plain SVG stretched to the card's width (the bars carry no text, so
 * stretching distorts nothing; the axis labels are HTML beside it). For screen readers it is one
 * image with a title and a summary; the table below has every number.
 */
function BarChart({ days, envName }: { days: ActivityDay[]; envName: string }) {
  const max = Math.max(1, ...days.flatMap((d) => SERIES.map((s) => d[s.key])));
  const height = (value: number) => (value / max) * 100;
  const busiest = days.reduce((best, d) => (d.signIns > best.signIns ? d : best), days[0]);
  const description = `${days.length} days from ${dayLabel(days[0].day)} to ${dayLabel(days[days.length - 1].day)}. ${SERIES.map(
    (s) => `${s.label}: ${days.reduce((sum, d) => sum + d[s.key], 0)}`,
  ).join(', ')}.${busiest.signIns > 0 ? ` Most sign-ins on ${dayLabel(busiest.day)} (${busiest.signIns}).` : ''}`;
  return (
    <figure class="chart">
      <div class="chart-plot">
        <div class="chart-y" aria-hidden="true">
          <span>{max}</span>
          <span>0</span>
        </div>
        <svg viewBox={`0 0 ${days.length * SLOT} 100`} preserveAspectRatio="none" role="img" aria-labelledby="activity-chart-title activity-chart-desc">
          <title id="activity-chart-title">{`${envName} sign-ins, sign-ups and failed sign-ins per day`}</title>
          <desc id="activity-chart-desc">{description}</desc>
          <line class="grid" x1={0} x2={days.length * SLOT} y1={0.5} y2={0.5} vector-effect="non-scaling-stroke" />
          {days.map((d, i) =>
            SERIES.map((s, j) => (
              <rect key={`${d.day}-${s.key}`} class={s.className} x={i * SLOT + 0.5 + j} y={100 - height(d[s.key])} width={0.9} height={height(d[s.key])}>
                <title>{`${dayLabel(d.day)}: ${d[s.key]} ${s.label.toLowerCase()}`}</title>
              </rect>
            )),
          )}
          <line class="axis" x1={0} x2={days.length * SLOT} y1={99.5} y2={99.5} vector-effect="non-scaling-stroke" />
        </svg>
      </div>
      <div class="chart-x" aria-hidden="true">
        <span>{shortDay(days[0].day)}</span>
        <span>{shortDay(days[Math.floor((days.length - 1) / 2)].day)}</span>
        <span>{shortDay(days[days.length - 1].day)}</span>
      </div>
      <figcaption class="legend">
        {SERIES.map((s) => (
          <span key={s.key} class="legend-item">
            <span class={`swatch ${s.className}`} aria-hidden="true" />
            {s.label}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** `2026-03-10` as "Tue, 10 Mar 2026", read in UTC like the day itself. */
function dayLabel(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
}

function shortDay(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { timeZone: 'UTC', day: 'numeric', month: 'short' });
}
