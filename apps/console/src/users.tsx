import { useState } from 'preact/hooks';
import { api, type Environment, type Project } from './api';
import { navigate } from './router';
import { describeUserAgent } from './user-agent';
import { Alert, Badge, Card, CheckField, DataTable, Field, parseJsonObject, RowButton, SearchForm, useAction, useLoad, usePagedSearch, when } from './ui';

export function UserList({ project, env }: { project: Project; env: Environment }) {
  const { page, search, setSearch, pager } = usePagedSearch((q, cursor) => api.listUsers(project.id, env, { q: q || undefined, cursor, limit: 25 }), [project.id, env]);
  const create = useAction();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const base = `#/projects/${project.id}/${env}/users`;
  return (
    <div class="stack">
      <Card title="Users" actions={page.data ? <span class="muted" aria-live="polite">{`${page.data.total} ${page.data.total === 1 ? 'user' : 'users'}`}</span> : null}>
        <SearchForm id="user-search" label="Search users by e-mail" placeholder="Search by part of the e-mail" onSearch={setSearch} />
        {page.error ? <Alert>{page.error}</Alert> : null}
        <DataTable
          caption="Users"
          headers={['E-mail', 'Role', 'State', 'Last sign-in']}
          empty={`No users${search ? ` match “${search}”` : ''}.`}
          rows={page.data?.users.map((u) => (
            <tr key={u.id}>
              <td>
                <a href={`${base}/${u.id}`}>{u.email}</a>
              </td>
              <td>
                <code>{u.role}</code>
              </td>
              <td>
                {u.banned ? <Badge tone="bad">banned</Badge> : null} {u.emailVerified ? <Badge tone="good">verified</Badge> : <Badge>unverified</Badge>}
              </td>
              <td>{when(u.lastLoginAt)}</td>
            </tr>
          ))}
        />
        {pager}
      </Card>
      <Card title="Add a user">
        <form
          class="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              const { user } = await api.createUser(project.id, env, password ? { email, password } : { email });
              navigate(`${base}/${user.id}`);
            });
          }}
        >
          <Field id="new-user-email" label="E-mail">
            <input id="new-user-email" type="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          </Field>
          <Field id="new-user-password" label="Password (optional)" hint="Leave empty for an account that signs in by magic link or a provider.">
            <input id="new-user-password" type="password" autoComplete="new-password" aria-describedby="new-user-password-hint" value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          </Field>
          <div class="form-actions">
            <button class="button button-primary" type="submit" disabled={create.busy}>
              Add user
            </button>
          </div>
        </form>
        {create.error ? <Alert>{create.error}</Alert> : null}
      </Card>
    </div>
  );
}

export function UserDetailView({ project, env, userId }: { project: Project; env: Environment; userId: string }) {
  const detail = useLoad(() => api.getUser(project.id, env, userId), [project.id, env, userId]);
  const action = useAction();
  const [edit, setEdit] = useState<{ role: string; meta: string; emailVerified: boolean } | null>(null);
  const [saved, setSaved] = useState(false);
  const user = detail.data?.user;
  if (detail.error) return <Alert>{detail.error}</Alert>;
  if (!user) return <p aria-busy="true">Loading…</p>;
  const form = edit ?? { role: user.role, meta: JSON.stringify(user.meta, null, 2), emailVerified: user.emailVerified };
  const metaProblem = parseJsonObject(form.meta, 'Meta').problem;
  const list = `#/projects/${project.id}/${env}/users`;
  const act = (work: () => Promise<unknown>) => action.run(async () => (await work(), detail.reload()));
  return (
    <div class="stack">
      <p>
        <a href={list}>← All users</a>
      </p>
      <Card
        title={user.email}
        actions={
          <>
            {user.banned ? (
              <button class="button" type="button" onClick={() => act(() => api.unbanUser(project.id, env, user.id))}>
                Unban
              </button>
            ) : (
              <button class="button button-danger" type="button" onClick={() => act(() => api.banUser(project.id, env, user.id))}>
                Ban
              </button>
            )}
            <button
              class="button button-danger"
              type="button"
              onClick={() => {
                if (confirm(`Delete ${user.email} and everything of theirs?`)) {
                  void action.run(async () => (await api.deleteUser(project.id, env, user.id), navigate(list)));
                }
              }}
            >
              Delete
            </button>
          </>
        }
      >
        <dl class="facts">
          <dt>Id</dt>
          <dd>
            <code>{user.id}</code>
          </dd>
          <dt>State</dt>
          <dd>
            {user.banned ? <Badge tone="bad">banned</Badge> : <Badge tone="good">active</Badge>} {user.emailVerified ? <Badge tone="good">verified</Badge> : <Badge>unverified</Badge>}
          </dd>
          <dt>Sign-in</dt>
          <dd>
            {user.hasPassword ? 'password' : 'no password'} · TOTP {user.totpEnabled ? 'on' : 'off'} · {user.passkeys.length} passkey(s)
          </dd>
          <dt>Created</dt>
          <dd>{when(user.createdAt)}</dd>
          <dt>Last sign-in</dt>
          <dd>{when(user.lastLoginAt)}</dd>
          <dt>Linked accounts</dt>
          <dd>{user.identities.length ? user.identities.map((i) => `${i.provider} (${i.email ?? i.subject})`).join(', ') : 'none'}</dd>
        </dl>
        {action.error ? <Alert>{action.error}</Alert> : null}
      </Card>
      <Card title="Role and meta">
        <form
          class="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            const parsed = parseJsonObject(form.meta, 'Meta');
            if (!parsed.value) return;
            setSaved(false);
            void action.run(async () => {
              await api.updateUser(project.id, env, user.id, { role: form.role, meta: parsed.value, emailVerified: form.emailVerified });
              setEdit(null);
              setSaved(true);
              detail.reload();
            });
          }}
        >
          <Field id="u-role" label="Role" hint="Carried in the user's next access token (role claim).">
            <input id="u-role" required aria-describedby="u-role-hint" value={form.role} onInput={(e) => setEdit({ ...form, role: e.currentTarget.value })} />
          </Field>
          <CheckField id="u-verified" label="E-mail verified" checked={form.emailVerified} onChange={(emailVerified) => setEdit({ ...form, emailVerified })} />
          <Field id="u-meta" label="Meta (JSON object)">
            <textarea
              id="u-meta"
              class="code"
              rows={8}
              spellcheck={false}
              aria-invalid={metaProblem ? 'true' : 'false'}
              aria-describedby={metaProblem ? 'u-meta-problem' : undefined}
              value={form.meta}
              onInput={(e) => setEdit({ ...form, meta: e.currentTarget.value })}
            />
          </Field>
          {metaProblem ? (
            <p class="field-problem" id="u-meta-problem" role="alert">
              {metaProblem}
            </p>
          ) : null}
          <div class="form-actions">
            <button class="button button-primary" type="submit" disabled={!!metaProblem || action.busy}>
              Save
            </button>
          </div>
        </form>
        {saved ? <Alert tone="success">Saved.</Alert> : null}
      </Card>
      <Card
        title="Sessions"
        actions={
          <button class="button button-danger" type="button" onClick={() => act(() => api.revokeAllSessions(project.id, env, user.id))}>
            Sign out everywhere
          </button>
        }
      >
        <DataTable
          caption="Sessions"
          headers={['Device', 'Address', 'Started', 'Last used', 'State', '']}
          empty="No sessions."
          rows={user.sessions.map((s) => (
            <tr key={s.id}>
              <td>
                <SessionDevice userAgent={s.userAgent} />
              </td>
              <td>{s.address ? <code>{s.address}</code> : <span class="muted">unknown</span>}</td>
              <td>{when(s.createdAt)}</td>
              <td>{when(s.lastUsedAt)}</td>
              <td>{s.active ? <Badge tone="good">active</Badge> : <Badge>revoked {when(s.revokedAt)}</Badge>}</td>
              <td>
                {s.active ? (
                  <RowButton label={`Revoke session started ${when(s.createdAt)}`} text="Revoke" onClick={() => act(() => api.revokeSession(project.id, env, user.id, s.id))} />
                ) : null}
              </td>
            </tr>
          ))}
        />
      </Card>
    </div>
  );
}

/** The device a session signed in from: a readable name, the raw User-Agent one click away. */
function SessionDevice({ userAgent }: { userAgent: string | null }) {
  const name = describeUserAgent(userAgent);
  if (!userAgent) return <span class="muted">{name}</span>;
  return (
    <details class="device">
      <summary title={userAgent}>{name}</summary>
      <code class="device-ua">{userAgent}</code>
    </details>
  );
}
