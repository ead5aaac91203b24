import { useState } from 'preact/hooks';
import { api, type Environment, type Project } from './api';
import { Alert, Badge, Card, DataTable, RowButton, Secret, useAction, useLoad, when } from './ui';

/** The environment's API keys (a new key's secret shown once) and its signing key. */
export function ApiKeys({ project, env }: { project: Project; env: Environment }) {
  const keys = useLoad(() => api.listApiKeys(project.id), [project.id]);
  const action = useAction();
  const [fresh, setFresh] = useState<string | null>(null);
  const signing = useLoad(() => api.publicKey(project.id, env), [project.id, env]);
  const ofEnv = keys.data?.apiKeys.filter((k) => k.environment === env) ?? [];
  return (
    <div class="stack">
      <Card
        title={`API keys (${env === 'production' ? 'Production' : 'Sandbox'})`}
        actions={
          <button
            class="button button-primary"
            type="button"
            disabled={action.busy}
            onClick={() =>
              action.run(async () => {
                setFresh((await api.createApiKey(project.id, env)).key);
                keys.reload();
              })
            }
          >
            New key
          </button>
        }
      >
        {fresh ? (
          <Alert tone="success">
            <p>Copy the new key now: it is shown only once.</p>
            <Secret label="Key" value={fresh} />
          </Alert>
        ) : null}
        {action.error || keys.error ? <Alert>{action.error ?? keys.error}</Alert> : null}
        <DataTable
          caption="API keys"
          headers={['Key', 'Created', 'State', '']}
          empty="No keys in this environment."
          rows={ofEnv.map((k) => (
            <tr key={k.id}>
              <td>
                <code>…{k.suffix}</code>
              </td>
              <td>{when(k.createdAt)}</td>
              <td>{k.revokedAt ? <Badge tone="bad">revoked</Badge> : <Badge tone="good">active</Badge>}</td>
              <td>
                {k.revokedAt ? null : (
                  <RowButton label={`Revoke key ending ${k.suffix}`} text="Revoke" onClick={() => action.run(async () => (await api.revokeApiKey(project.id, k.id), keys.reload()))} />
                )}
              </td>
            </tr>
          ))}
        />
      </Card>
      <Card
        title="Signing key"
        actions={
          <button class="button" type="button" onClick={() => action.run(async () => (await api.rotateSigningKey(project.id, env), signing.reload()))}>
            Rotate
          </button>
        }
      >
        {signing.data ? (
          <>
            <p>
              Key id <code>{signing.data.kid}</code>. JWKS:{' '}
              <a href={`/api/projects/${project.id}/${env}/jwks.json`}>{`/api/projects/${project.id}/${env}/jwks.json`}</a>
            </p>
            <pre class="pem" tabIndex={0} aria-label="Public key (PEM)">
              {signing.data.publicKey}
            </pre>
          </>
        ) : signing.error ? (
          <Alert>{signing.error}</Alert>
        ) : null}
      </Card>
    </div>
  );
}
