import { useState } from 'preact/hooks';
import { SECURITY_EVENT_TYPES, type Actor, type SecurityEventType } from '@svc/core/security-event';
import { api, type AuditEntry, type AuditQuery, type Environment, type Project } from './api';
import { Alert, Badge, Card, Field, useAction, useLoad, when } from './ui';

/** The types the audit log holds and webhooks subscribe to (a test delivery is for its endpoint alone, never logged). */
export const LOGGED_TYPES = SECURITY_EVENT_TYPES.filter((type) => type !== 'webhook.test');
const PAGE_SIZES = [10, 25, 50, 100];

interface Filters {
  type: SecurityEventType | '';
  userId: string;
  /** `datetime-local` values: the operator's local time. */
  from: string;
  to: string;
  limit: number;
}

const NO_FILTERS: Filters = { type: '', userId: '', from: '', to: '', limit: 50 };

function queryOf(filters: Filters): AuditQuery {
  const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return { type: filters.type || undefined, userId: filters.userId.trim() || undefined, from: instant(filters.from), to: instant(filters.to), limit: filters.limit };
}

/** The environment's audit log, newest first: filters, then pages of entries loaded on demand. */
export function AuditLog({ project, env }: { project: Project; env: Environment }) {
  const [form, setForm] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<{ filters: Filters; run: number }>({ filters: NO_FILTERS, run: 0 });
  const load = (filters: Filters) => setApplied({ filters, run: applied.run + 1 });
  const apply = (filters: Filters) => {
    setForm(filters);
    load(filters);
  };
  const base = `#/projects/${project.id}/${env}`;
  // API keys are named by their last characters, as on the Keys screen.
  const keys = useLoad(() => api.listApiKeys(project.id), [project.id]);
  const keySuffixes = new Map(keys.data?.apiKeys.map((k) => [k.id, k.suffix]));
  return (
    <Card
      title="Audit log"
      actions={
        <button class="button" type="button" onClick={() => load(applied.filters)}>
          Refresh
        </button>
      }
    >
      <form
        class="form-grid filters"
        aria-label="Filter the audit log"
        onSubmit={(e) => {
          e.preventDefault();
          apply(form);
        }}
      >
        <Field id="audit-type" label="Event type">
          <select id="audit-type" value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value as Filters['type'] })}>
            <option value="">Every type</option>
            {LOGGED_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </Field>
        <Field id="audit-user" label="User id">
          <input id="audit-user" spellcheck={false} autoComplete="off" placeholder="Any user" value={form.userId} onInput={(e) => setForm({ ...form, userId: e.currentTarget.value })} />
        </Field>
        <Field id="audit-from" label="From (your local time)">
          <input id="audit-from" type="datetime-local" value={form.from} onInput={(e) => setForm({ ...form, from: e.currentTarget.value })} />
        </Field>
        <Field id="audit-to" label="Until (your local time)">
          <input id="audit-to" type="datetime-local" value={form.to} onInput={(e) => setForm({ ...form, to: e.currentTarget.value })} />
        </Field>
        <Field id="audit-limit" label="Entries per page">
          <select id="audit-limit" value={String(form.limit)} onChange={(e) => setForm({ ...form, limit: Number(e.currentTarget.value) })}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        </Field>
        <div class="form-actions">
          <button class="button button-primary" type="submit">
            Apply filters
          </button>{' '}
          <button class="button" type="button" onClick={() => apply(NO_FILTERS)}>
            Clear
          </button>
        </div>
      </form>
      <Entries key={applied.run} project={project} env={env} filters={applied.filters} view={{ base, keySuffixes, onUser: (userId) => apply({ ...applied.filters, userId }) }} />
    </Card>
  );
}

/** How entries link and name things: the environment's route, API key suffixes by id, the user filter. */
interface EntryView {
  base: string;
  keySuffixes: Map<string, string>;
  onUser(userId: string): void;
}

/** The first page for `filters`, and older pages appended by "Load older entries". */
function Entries({ project, env, filters, view }: { project: Project; env: Environment; filters: Filters; view: EntryView }) {
  const first = useLoad(() => api.auditLog(project.id, env, queryOf(filters)), [project.id, env]);
  const [older, setOlder] = useState<{ entries: AuditEntry[]; nextCursor: string | null } | null>(null);
  const more = useAction();
  if (first.error) return <Alert>{first.error}</Alert>;
  if (!first.data) return <p aria-busy="true">Loading…</p>;
  const entries = [...first.data.entries, ...(older?.entries ?? [])];
  const nextCursor = older ? older.nextCursor : first.data.nextCursor;
  return (
    <>
      <p class="muted" role="status">
        {entries.length === 0 ? 'No entries match.' : `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'} shown${nextCursor ? ', older ones on request' : ''}.`}
      </p>
      <ol class="audit-list" aria-label="Audit entries, newest first">
        {entries.map((entry) => (
          <AuditItem key={entry.id} entry={entry} view={view} />
        ))}
      </ol>
      {more.error ? <Alert>{more.error}</Alert> : null}
      {nextCursor ? (
        <div class="pager">
          <button
            class="button"
            type="button"
            disabled={more.busy}
            onClick={() =>
              more.run(async () => {
                const page = await api.auditLog(project.id, env, { ...queryOf(filters), cursor: nextCursor });
                setOlder({ entries: [...(older?.entries ?? []), ...page.entries], nextCursor: page.nextCursor });
              })
            }
          >
            Load older entries
          </button>
        </div>
      ) : entries.length > 0 ? (
        <p class="muted end">No older entries.</p>
      ) : null}
    </>
  );
}

const BAD: readonly string[] = ['user.sign_in_failed', 'refresh_token.reused', 'user.banned', 'user.deleted'];
const GOOD: readonly string[] = ['user.created', 'user.signed_in', 'email.verified'];

function AuditItem({ entry, view }: { entry: AuditEntry; view: EntryView }) {
  const { userId } = entry;
  return (
    <li class="audit-entry">
      <div class="audit-head">
        <Badge tone={BAD.includes(entry.type) ? 'bad' : GOOD.includes(entry.type) ? 'good' : 'neutral'}>{entry.type}</Badge>
        <time dateTime={entry.at}>{when(entry.at)}</time>
      </div>
      <dl class="audit-facts">
        <div>
          <dt>Actor</dt>
          <dd>
            <ActorView actor={entry.actor} view={view} />
          </dd>
        </div>
        <div>
          <dt>User</dt>
          <dd>
            {userId ? (
              <>
                <a href={`${view.base}/users/${userId}`}>
                  <code>{userId}</code>
                </a>{' '}
                <button class="button button-small" type="button" aria-label={`Only this user: ${userId}`} onClick={() => view.onUser(userId)}>
                  Only this user
                </button>
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div>
          <dt>Address</dt>
          <dd>{entry.clientAddress ?? '—'}</dd>
        </div>
        <div>
          <dt>User agent</dt>
          <dd>{entry.userAgent ?? '—'}</dd>
        </div>
        <div>
          <dt>Request id</dt>
          <dd>{entry.requestId ? <code>{entry.requestId}</code> : '—'}</dd>
        </div>
      </dl>
      <details class="audit-details">
        <summary>Details</summary>
        <EntryData entry={entry} />
      </details>
    </li>
  );
}

function ActorView({ actor, view }: { actor: Actor; view: EntryView }) {
  switch (actor.type) {
    case 'user':
      return (
        <>
          User{' '}
          <a href={`${view.base}/users/${actor.userId}`}>
            <code>{actor.userId}</code>
          </a>
        </>
      );
    case 'api_key': {
      const suffix = view.keySuffixes.get(actor.apiKeyId);
      return suffix ? (
        <>
          API key <code>…{suffix}</code>
        </>
      ) : (
        <>
          API key <code>{actor.apiKeyId}</code>
        </>
      );
    }
    case 'admin':
      return <>{actor.via === 'console' ? 'Console' : actor.via === 'cli' ? 'CLI' : 'Admin token'}</>;
    default:
      return <>System</>;
  }
}

const shown = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value, null, 1));

/** An entry's data: a settings change as before/after per field, anything else as JSON. */
function EntryData({ entry }: { entry: AuditEntry }) {
  const { before, after } = entry.data as { before?: Record<string, unknown>; after?: Record<string, unknown> };
  const change = before && after && typeof before === 'object' && typeof after === 'object';
  return (
    <div class="audit-data">
      <p class="muted">
        Entry <code>{entry.id}</code>
      </p>
      {change ? (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Settings changed</caption>
            <thead>
              <tr>
                <th scope="col">Setting</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {[...new Set([...Object.keys(before), ...Object.keys(after)])].map((field) => (
                <tr key={field}>
                  <th scope="row">{field}</th>
                  <td>
                    <pre class="value">{shown(before[field])}</pre>
                  </td>
                  <td>
                    <pre class="value">{shown(after[field])}</pre>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : Object.keys(entry.data).length ? (
        <pre class="value" tabIndex={0} aria-label="Event data (JSON)">
          {JSON.stringify(entry.data, null, 2)}
        </pre>
      ) : (
        <p class="muted">No further details for this type.</p>
      )}
    </div>
  );
}
