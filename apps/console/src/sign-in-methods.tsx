import { useState } from 'preact/hooks';
import { api, type Environment, type Project } from './api';
import { Alert, Badge, Card, CheckField, DataTable, Field, RowButton, Secret, useAction, useLoad, when } from './ui';

const PROVIDERS = ['google', 'github', 'discord', 'oidc'];
const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** Social sign-in providers (secrets write-only) and OIDC clients of one environment. */
export function SignInMethods({ project, env }: { project: Project; env: Environment }) {
  return (
    <div class="stack">
      <Providers project={project} env={env} />
      <OidcClients project={project} env={env} />
    </div>
  );
}

function Providers({ project, env }: { project: Project; env: Environment }) {
  const list = useLoad(() => api.listProviders(project.id, env), [project.id, env]);
  const action = useAction();
  const [form, setForm] = useState({ provider: 'github', clientId: '', clientSecret: '', enabled: true });
  return (
    <Card title="Social sign-in providers">
      <DataTable
        caption="Providers"
        headers={['Provider', 'Client id', 'State', 'Changed', '']}
        empty="No provider configured in this environment."
        rows={list.data?.providers.map((p) => (
          <tr key={p.provider}>
            <td>{p.provider}</td>
            <td>
              <code>{p.clientId}</code>
            </td>
            <td>{p.enabled ? <Badge tone="good">enabled</Badge> : <Badge>disabled</Badge>}</td>
            <td>{when(p.updatedAt)}</td>
            <td>
              <RowButton label={`Remove ${p.provider}`} text="Remove" onClick={() => action.run(async () => (await api.removeProvider(project.id, p.provider, env), list.reload()))} />
            </td>
          </tr>
        ))}
      />
      <form
        class="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            await api.saveProvider(project.id, form.provider, { environment: env, enabled: form.enabled, clientId: form.clientId, clientSecret: form.clientSecret });
            setForm({ ...form, clientId: '', clientSecret: '' });
            list.reload();
          });
        }}
      >
        <Field id="p-provider" label="Provider">
          <select id="p-provider" value={form.provider} onChange={(e) => setForm({ ...form, provider: e.currentTarget.value })}>
            {PROVIDERS.map((p) => (
              <option key={p}>{p}</option>
            ))}
          </select>
        </Field>
        <Field id="p-client" label="Client id">
          <input id="p-client" required value={form.clientId} onInput={(e) => setForm({ ...form, clientId: e.currentTarget.value })} />
        </Field>
        <Field id="p-secret" label="Client secret" hint="Write-only: it is stored encrypted and never shown again.">
          <input id="p-secret" type="password" autoComplete="off" required aria-describedby="p-secret-hint" value={form.clientSecret} onInput={(e) => setForm({ ...form, clientSecret: e.currentTarget.value })} />
        </Field>
        <CheckField id="p-enabled" label="Enabled" checked={form.enabled} onChange={(enabled) => setForm({ ...form, enabled })} />
        <div class="form-actions">
          <button class="button button-primary" type="submit" disabled={action.busy}>
            Save provider
          </button>
        </div>
      </form>
      {action.error || list.error ? <Alert>{action.error ?? list.error}</Alert> : null}
    </Card>
  );
}

function OidcClients({ project, env }: { project: Project; env: Environment }) {
  const list = useLoad(() => api.listOidcClients(project.id, env), [project.id, env]);
  const action = useAction();
  const [form, setForm] = useState({ name: '', redirectUris: '', public: false });
  const [secret, setSecret] = useState<{ clientId: string; clientSecret?: string } | null>(null);
  return (
    <Card title="OIDC clients (hosted sign-in, Pro plan)">
      <DataTable
        caption="OIDC clients"
        headers={['Name', 'Client id', 'Redirect URIs', '']}
        empty="No OIDC client in this environment."
        rows={list.data?.clients.map((c) => (
          <tr key={c.clientId}>
            <td>
              {c.name} {c.public ? <Badge>public</Badge> : null}
            </td>
            <td>
              <code>{c.clientId}</code>
            </td>
            <td>{c.redirectUris.join(', ')}</td>
            <td>
              <RowButton label={`Delete client ${c.name}`} text="Delete" onClick={() => action.run(async () => (await api.deleteOidcClient(project.id, c.clientId), list.reload()))} />
            </td>
          </tr>
        ))}
      />
      <form
        class="form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            setSecret(await api.createOidcClient(project.id, { environment: env, name: form.name, redirectUris: lines(form.redirectUris), public: form.public }));
            setForm({ name: '', redirectUris: '', public: false });
            list.reload();
          });
        }}
      >
        <Field id="o-name" label="Name">
          <input id="o-name" required value={form.name} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} />
        </Field>
        <Field id="o-redirects" label="Redirect URIs" hint="One per line.">
          <textarea id="o-redirects" rows={2} required aria-describedby="o-redirects-hint" value={form.redirectUris} onInput={(e) => setForm({ ...form, redirectUris: e.currentTarget.value })} />
        </Field>
        <CheckField id="o-public" label="Public client (no secret, PKCE)" checked={form.public} onChange={(isPublic) => setForm({ ...form, public: isPublic })} />
        <div class="form-actions">
          <button class="button button-primary" type="submit" disabled={action.busy}>
            Register client
          </button>
        </div>
      </form>
      {secret ? (
        <Alert tone="success">
          <p>Client registered. {secret.clientSecret ? 'Copy its secret now: it is shown only once.' : ''}</p>
          <Secret label="Client id" value={secret.clientId} />
          {secret.clientSecret ? <Secret label="Secret" value={secret.clientSecret} /> : null}
        </Alert>
      ) : null}
      {action.error || list.error ? <Alert>{action.error ?? list.error}</Alert> : null}
    </Card>
  );
}
