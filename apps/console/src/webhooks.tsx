import { useEffect, useState } from 'preact/hooks';
import { api, type Environment, type Project, type WebhookEndpoint, type WebhookMessage } from './api';
import { LOGGED_TYPES } from './audit-log';
import { navigate } from './router';
import { Alert, Badge, Card, CheckField, DataTable, Field, Secret, useAction, useLoad, when } from './ui';

const envName = (env: Environment) => (env === 'production' ? 'Production' : 'Sandbox');
const typesText = (types: string[]) => (types.length === 0 ? 'Every event type' : types.join(', '));

/** The environment's webhook endpoints, or one endpoint with its delivery log. */
export function Webhooks({ project, env, endpointId }: { project: Project; env: Environment; endpointId?: string }) {
  const base = `#/projects/${project.id}/${env}/webhooks`;
  return endpointId ? <EndpointView key={endpointId} project={project} env={env} endpointId={endpointId} base={base} /> : <EndpointList project={project} env={env} base={base} />;
}

/** Checkboxes for the event types an endpoint receives; none checked means every type. */
function EventTypePicker({ id, selected, onChange }: { id: string; selected: string[]; onChange(types: string[]): void }) {
  return (
    <fieldset class="type-picker" aria-describedby={`${id}-hint`}>
      <legend>Event types</legend>
      <p class="hint" id={`${id}-hint`}>
        None checked: every event type, including types added later.
      </p>
      <div class="type-grid">
        {LOGGED_TYPES.map((type) => (
          <CheckField
            key={type}
            id={`${id}-${type.replace(/[._]/g, '-')}`}
            label={type}
            checked={selected.includes(type)}
            onChange={(checked) => onChange(checked ? [...selected, type] : selected.filter((t) => t !== type))}
          />
        ))}
      </div>
    </fieldset>
  );
}

function StateBadge({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.enabled) return <Badge tone="good">enabled</Badge>;
  return <Badge tone={endpoint.disabledReason ? 'bad' : 'neutral'}>{endpoint.disabledReason ? `disabled (${endpoint.disabledReason})` : 'disabled'}</Badge>;
}

/** A secret that must be copied now: the endpoint's signing secret, after creation or rotation. */
function SecretOnce({ title, secret }: { title: string; secret: string }) {
  return (
    <Alert tone="success">
      <p>
        {title} Copy the signing secret now: <strong>you won't see it again</strong>. Receivers verify each delivery with it (Standard Webhooks).
      </p>
      <Secret label="Signing secret" value={secret} />
    </Alert>
  );
}

function EndpointList({ project, env, base }: { project: Project; env: Environment; base: string }) {
  const list = useLoad(() => api.listWebhooks(project.id, env), [project.id, env]);
  const action = useAction();
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [created, setCreated] = useState<{ endpoint: WebhookEndpoint; secret: string } | null>(null);
  return (
    <Card title={`Webhook endpoints (${envName(env)})`}>
      <p class="muted">Each endpoint receives the environment's events as signed HTTP posts, retried for about a day when it does not answer 2xx.</p>
      <DataTable
        caption="Webhook endpoints"
        headers={['URL', 'Event types', 'State', 'Created']}
        empty="No webhook endpoint in this environment."
        rows={list.data?.endpoints.map((endpoint) => (
          <tr key={endpoint.id}>
            <td class="wrap">
              <a href={`${base}/${endpoint.id}`}>{endpoint.url}</a>
            </td>
            <td class="wrap">{typesText(endpoint.eventTypes)}</td>
            <td>
              <StateBadge endpoint={endpoint} />
            </td>
            <td>{when(endpoint.createdAt)}</td>
          </tr>
        ))}
      />
      {created ? (
        <>
          <SecretOnce title="Endpoint added." secret={created.secret} />
          <p>
            <a href={`${base}/${created.endpoint.id}`}>Open the endpoint</a> to send a test delivery.
          </p>
        </>
      ) : null}
      <form
        class="form-grid"
        aria-label="Add an endpoint"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            setCreated(await api.createWebhook(project.id, env, { url: url.trim(), eventTypes: types }));
            setUrl('');
            setTypes([]);
            list.reload();
          });
        }}
      >
        <Field id="hook-url" label="Endpoint URL" hint="https:// (or http://). Deliveries to loopback and private addresses are refused unless the service allows them (SVC_WEBHOOKS_ALLOW_PRIVATE).">
          <input id="hook-url" type="url" required placeholder="https://example.com/webhooks/svc" aria-describedby="hook-url-hint" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
        </Field>
        <div class="form-actions">
          <EventTypePicker id="hook-types" selected={types} onChange={setTypes} />
        </div>
        <div class="form-actions">
          <button class="button button-primary" type="submit" disabled={action.busy}>
            Add endpoint
          </button>
        </div>
      </form>
      {action.error || list.error ? <Alert>{action.error ?? list.error}</Alert> : null}
    </Card>
  );
}

/**
 * Whether a message may change soon on its own: being sent, or due within a minute either way
 * (so a log whose worker is not running stops asking after a minute).
 */
const inFlight = (m: WebhookMessage) => m.status === 'sending' || (m.status === 'pending' && Math.abs(Date.parse(m.nextAttemptAt) - Date.now()) < 60_000);

function EndpointView({ project, env, endpointId, base }: { project: Project; env: Environment; endpointId: string; base: string }) {
  const loaded = useLoad(() => api.getWebhook(project.id, env, endpointId), [project.id, env, endpointId]);
  const messages = useLoad(() => api.webhookMessages(project.id, env, endpointId), [project.id, env, endpointId]);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [types, setTypes] = useState<string[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  // Deliveries happen in the background: the log follows them while one is under way.
  useEffect(() => {
    if (!messages.data?.messages.some(inFlight)) return;
    const timer = setTimeout(messages.reload, 1000);
    return () => clearTimeout(timer);
  }, [messages.data]);
  const endpoint = loaded.data?.endpoint;
  const back = (
    <p class="crumbs">
      <a href={base}>← All endpoints</a>
    </p>
  );
  if (!endpoint) {
    return (
      <div class="stack">
        {back}
        {loaded.error ? <Alert>{loaded.error}</Alert> : <p aria-busy="true">Loading…</p>}
      </div>
    );
  }
  const act = (done: string | null, work: () => Promise<unknown>) =>
    action.run(async () => {
      setNotice(null);
      await work();
      setNotice(done);
      loaded.reload();
      messages.reload();
    });
  return (
    <div class="stack">
      {back}
      <Card
        title="Webhook endpoint"
        actions={
          <>
            <button class="button button-primary" type="button" disabled={action.busy} onClick={() => act('Test delivery queued.', () => api.testWebhook(project.id, env, endpoint.id))}>
              Send test
            </button>
            <button
              class="button"
              type="button"
              disabled={action.busy}
              onClick={() => act(endpoint.enabled ? 'Endpoint disabled.' : 'Endpoint enabled.', () => api.updateWebhook(project.id, env, endpoint.id, { enabled: !endpoint.enabled }))}
            >
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </button>
            <button class="button" type="button" disabled={action.busy} onClick={() => act(null, async () => setSecret((await api.rotateWebhookSecret(project.id, env, endpoint.id)).secret))}>
              Rotate secret
            </button>
            <button
              class="button button-danger"
              type="button"
              disabled={action.busy}
              onClick={() => {
                if (confirm(`Delete the endpoint ${endpoint.url} and its delivery log?`)) {
                  void action.run(async () => {
                    await api.deleteWebhook(project.id, env, endpoint.id);
                    navigate(base);
                  });
                }
              }}
            >
              Delete
            </button>
          </>
        }
      >
        <dl class="facts">
          <dt>URL</dt>
          <dd>
            <code>{endpoint.url}</code>
          </dd>
          <dt>State</dt>
          <dd>
            <StateBadge endpoint={endpoint} />
          </dd>
          <dt>Event types</dt>
          <dd>{typesText(endpoint.eventTypes)}</dd>
          <dt>Created</dt>
          <dd>{when(endpoint.createdAt)}</dd>
          {endpoint.previousSecretExpiresAt ? (
            <>
              <dt>Previous secret</dt>
              <dd>still signs beside the new one until {when(endpoint.previousSecretExpiresAt)}</dd>
            </>
          ) : null}
        </dl>
        {secret ? <SecretOnce title="Secret rotated; the previous one keeps signing beside it for 24 hours." secret={secret} /> : null}
        {notice ? <Alert tone="info">{notice}</Alert> : null}
        {action.error || loaded.error ? <Alert>{action.error ?? loaded.error}</Alert> : null}
        <form
          class="form-grid edit-types"
          aria-label="Edit event types"
          onSubmit={(e) => {
            e.preventDefault();
            if (types) void act('Event types saved.', async () => (await api.updateWebhook(project.id, env, endpoint.id, { eventTypes: types }), setTypes(null)));
          }}
        >
          <div class="form-actions">
            <EventTypePicker id="edit-types" selected={types ?? endpoint.eventTypes} onChange={setTypes} />
          </div>
          <div class="form-actions">
            <button class="button" type="submit" disabled={action.busy || !types}>
              Save event types
            </button>
          </div>
        </form>
      </Card>
      <Card
        title="Delivery log"
        actions={
          <button class="button" type="button" onClick={messages.reload}>
            Refresh
          </button>
        }
      >
        <p class="muted">The latest 50 messages. Tries count the current round: a redelivery starts the retry schedule over; a message's attempts list every try.</p>
        {messages.error ? <Alert>{messages.error}</Alert> : null}
        <DataTable
          caption="Latest messages, newest first"
          headers={['Event', 'Created', 'Status', 'Tries', 'Last answer', '']}
          empty="Nothing sent to this endpoint yet."
          rows={messages.data?.messages.map((m) => (
            <tr key={m.id} class={open === m.id ? 'row-open' : undefined}>
              <td>{m.eventType}</td>
              <td>{when(m.createdAt)}</td>
              <td>
                <StatusBadge status={m.status} />
              </td>
              <td>{m.attempts}</td>
              <td class="wrap">{m.lastStatusCode ?? m.lastError ?? '—'}</td>
              <td class="row-actions">
                <button class="button button-small" type="button" aria-expanded={open === m.id} aria-label={`${open === m.id ? 'Hide attempts' : 'Attempts'} of ${m.eventType} ${m.webhookId}`} onClick={() => setOpen(open === m.id ? null : m.id)}>
                  {open === m.id ? 'Hide attempts' : 'Attempts'}
                </button>
                <button
                  class="button button-small"
                  type="button"
                  disabled={action.busy || m.status === 'sending'}
                  aria-label={`Redeliver ${m.eventType} ${m.webhookId}`}
                  onClick={() => act('Message queued again, under the same webhook-id.', () => api.redeliverMessage(project.id, env, m.id))}
                >
                  Redeliver
                </button>
              </td>
            </tr>
          ))}
        />
        {open ? <MessageView project={project} env={env} messageId={open} version={messages.data} /> : null}
      </Card>
      <RedeliverRange project={project} env={env} endpointId={endpoint.id} onDone={messages.reload} />
    </div>
  );
}

function StatusBadge({ status }: { status: WebhookMessage['status'] }) {
  return <Badge tone={status === 'delivered' ? 'good' : status === 'dead' ? 'bad' : 'warn'}>{status}</Badge>;
}

/** One message: every attempt at it and the body as signed; reloaded with the log (`version`). */
function MessageView({ project, env, messageId, version }: { project: Project; env: Environment; messageId: string; version: unknown }) {
  const loaded = useLoad(() => api.webhookMessage(project.id, env, messageId), [project.id, env, messageId, version]);
  if (loaded.error) return <Alert>{loaded.error}</Alert>;
  if (!loaded.data) return <p aria-busy="true">Loading…</p>;
  const { message, attempts } = loaded.data;
  return (
    <section class="message" aria-label={`Message ${message.webhookId}`}>
      <h3>
        {message.eventType} <code>{message.webhookId}</code>
      </h3>
      <p class="muted">
        <StatusBadge status={message.status} /> · created {when(message.createdAt)}
        {message.deliveredAt ? ` · delivered ${when(message.deliveredAt)}` : ''}
        {message.status === 'pending' && message.attempts > 0 ? ` · next try ${when(message.nextAttemptAt)}` : ''}
      </p>
      {attempts.length === 0 ? <p class="muted">Not tried yet.</p> : null}
      <ol class="attempts" aria-label={`Attempts of ${message.webhookId}`}>
        {attempts.map((a) => (
          <li key={`${a.at}-${a.attempt}`}>
            <span>
              Try {a.attempt} · {when(a.at)} · {a.durationMs} ms
            </span>{' '}
            {a.statusCode === null ? <Badge tone="bad">no answer</Badge> : <Badge tone={a.statusCode >= 200 && a.statusCode < 300 ? 'good' : 'bad'}>{`HTTP ${a.statusCode}`}</Badge>}
            {a.error ? <p class="attempt-error">{a.error}</p> : null}
          </li>
        ))}
      </ol>
      <details class="audit-details">
        <summary>Body</summary>
        <pre class="value" tabIndex={0} aria-label="Message body (JSON)">
          {JSON.stringify(message.payload, null, 2)}
        </pre>
      </details>
    </section>
  );
}

/** Delivers again the endpoint's delivered and dead messages created in a time range. */
function RedeliverRange({ project, env, endpointId, onDone }: { project: Project; env: Environment; endpointId: string; onDone(): void }) {
  const [range, setRange] = useState({ from: '', to: '' });
  const [requeued, setRequeued] = useState<number | null>(null);
  const action = useAction();
  return (
    <Card title="Redeliver a time range">
      <p class="muted">Every delivered or dead message created in the range is sent again (at most 1000), each under its own webhook-id.</p>
      <form
        class="form-grid"
        aria-label="Redeliver a time range"
        onSubmit={(e) => {
          e.preventDefault();
          setRequeued(null);
          void action.run(async () => {
            const { requeued: count } = await api.redeliverRange(project.id, env, endpointId, { from: new Date(range.from).toISOString(), to: new Date(range.to).toISOString() });
            setRequeued(count);
            onDone();
          });
        }}
      >
        <Field id="redeliver-from" label="From (your local time)">
          <input id="redeliver-from" type="datetime-local" required value={range.from} onInput={(e) => setRange({ ...range, from: e.currentTarget.value })} />
        </Field>
        <Field id="redeliver-to" label="Until (your local time)">
          <input id="redeliver-to" type="datetime-local" required value={range.to} onInput={(e) => setRange({ ...range, to: e.currentTarget.value })} />
        </Field>
        <div class="form-actions">
          <button class="button" type="submit" disabled={action.busy}>
            Redeliver range
          </button>
        </div>
      </form>
      {requeued !== null ? <Alert tone="success">{`${requeued} ${requeued === 1 ? 'message' : 'messages'} queued again.`}</Alert> : null}
      {action.error ? <Alert>{action.error}</Alert> : null}
    </Card>
  );
}
