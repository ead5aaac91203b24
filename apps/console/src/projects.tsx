import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, type Environment, type Project } from './api';
import { Alert, Badge, Card, DataTable, Field, parseJsonObject, SearchForm, Secret, useAction, usePagedSearch, when } from './ui';
import { navigate } from './router';

export function ProjectList() {
  const { page, search, setSearch, pager } = usePagedSearch((q, cursor) => api.listProjects({ q: q || undefined, cursor }), []);
  const [created, setCreated] = useState<{ project: Project; apiKeys: Record<Environment, string> } | null>(null);
  const create = useAction();
  const [name, setName] = useState('');
  const [plan, setPlan] = useState('FREE');
  return (
    <div class="stack">
      <Card title="Projects">
        <SearchForm id="project-search" label="Search projects by name" placeholder="Search by name" onSearch={setSearch} />
        {page.error ? <Alert>{page.error}</Alert> : null}
        <DataTable
          caption="Projects"
          headers={['Name', 'Plan', 'Created']}
          empty={`No projects${search ? ` match “${search}”` : ' yet: create one below'}.`}
          rows={page.data?.projects.map((p) => (
            <tr key={p.id}>
              <td>
                <a href={`#/projects/${p.id}/production/users`}>{p.name}</a>
              </td>
              <td>
                <Badge>{p.plan}</Badge>
              </td>
              <td>{when(p.createdAt)}</td>
            </tr>
          ))}
        />
        {pager}
      </Card>
      <Card title="New project">
        <form
          class="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(async () => {
              setCreated(await api.createProject({ name, plan }));
              setName('');
              page.reload();
            });
          }}
        >
          <Field id="new-project-name" label="Name">
            <input id="new-project-name" required maxLength={200} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field id="new-project-plan" label="Plan">
            <select id="new-project-plan" value={plan} onChange={(e) => setPlan(e.currentTarget.value)}>
              <option>FREE</option>
              <option>SOLO</option>
              <option>PRO</option>
            </select>
          </Field>
          <div class="form-actions">
            <button class="button button-primary" type="submit" disabled={create.busy}>
              Create project
            </button>
          </div>
        </form>
        {create.error ? <Alert>{create.error}</Alert> : null}
        {created ? (
          <Alert tone="success">
            <p>
              <strong>{created.project.name}</strong> was created. Copy its API keys now: they are shown only once.
            </p>
            <Secret label="Production" value={created.apiKeys.production} />
            <Secret label="Sandbox" value={created.apiKeys.sandbox} />
            <p>
              <a href={`#/projects/${created.project.id}/production/settings`}>Open its settings</a>
            </p>
          </Alert>
        ) : null}
      </Card>
    </div>
  );
}

const webauthnOf = (project: Project) => project.webauthn as { rpId: string; rpName: string; origins: string[] } | null | undefined;

const lines = (text: string) => text.split('\n').map((l) => l.trim()).filter(Boolean);

/** The settings form; `children` (more settings cards) go before the delete card. */
export function ProjectSettings({ project, onChange, children }: { project: Project; onChange(p: Project): void; children?: ComponentChildren }) {
  const [form, setForm] = useState({
    name: project.name,
    plan: project.plan,
    allowedOrigins: project.allowedOrigins.join('\n'),
    redirectUrls: project.redirectUrls.join('\n'),
    magicLinkUrl: project.magicLinkUrl ?? '',
    passwordResetUrl: project.passwordResetUrl ?? '',
    accessTokenTtlSeconds: String(project.accessTokenTtlSeconds),
    refreshTokenTtlSeconds: String(project.refreshTokenTtlSeconds),
    refreshReuseGraceSeconds: String(project.refreshReuseGraceSeconds),
    refreshReuseResponse: String(project.refreshReuseResponse ?? 'revoke_all_sessions'),
    refreshReuseNotice: project.refreshReuseNotice === true,
    auditRetentionDays: String(project.auditRetentionDays ?? 90),
    defaultMeta: JSON.stringify(project.defaultMeta, null, 2),
    rpId: webauthnOf(project)?.rpId ?? '',
    rpName: webauthnOf(project)?.rpName ?? '',
    rpOrigins: (webauthnOf(project)?.origins ?? []).join('\n'),
  });
  const defaultMeta = parseJsonObject(form.defaultMeta, 'Default meta');
  const save = useAction();
  const remove = useAction();
  const [saved, setSaved] = useState(false);
  const [confirm, setConfirm] = useState('');
  const set = (key: keyof typeof form) => (e: { currentTarget: { value: string } }) => setForm({ ...form, [key]: e.currentTarget.value });
  return (
    <div class="stack">
      <Card title="Settings">
        <form
          class="form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(false);
            void save.run(async () => {
              const { project: updated } = await api.updateProject(project.id, {
                name: form.name,
                plan: form.plan,
                allowedOrigins: lines(form.allowedOrigins),
                redirectUrls: lines(form.redirectUrls),
                magicLinkUrl: form.magicLinkUrl.trim() || null,
                passwordResetUrl: form.passwordResetUrl.trim() || null,
                accessTokenTtlSeconds: Number(form.accessTokenTtlSeconds),
                refreshTokenTtlSeconds: Number(form.refreshTokenTtlSeconds),
                refreshReuseGraceSeconds: Number(form.refreshReuseGraceSeconds),
                refreshReuseResponse: form.refreshReuseResponse,
                refreshReuseNotice: form.refreshReuseNotice,
                auditRetentionDays: Number(form.auditRetentionDays),
                defaultMeta: defaultMeta.value,
                // All three empty: the relying party is derived from the allowed origins again.
                webauthn: form.rpId || form.rpName || form.rpOrigins.trim() ? { rpId: form.rpId.trim(), rpName: form.rpName.trim(), origins: lines(form.rpOrigins) } : null,
              });
              onChange(updated);
              setSaved(true);
            });
          }}
        >
          <Field id="s-name" label="Name">
            <input id="s-name" required value={form.name} onInput={set('name')} />
          </Field>
          <Field id="s-plan" label="Plan">
            <select id="s-plan" value={form.plan} onChange={set('plan')}>
              <option>FREE</option>
              <option>SOLO</option>
              <option>PRO</option>
            </select>
          </Field>
          <Field id="s-origins" label="Allowed origins" hint="One per line; empty allows any origin.">
            <textarea id="s-origins" rows={3} aria-describedby="s-origins-hint" value={form.allowedOrigins} onInput={set('allowedOrigins')} />
          </Field>
          <Field id="s-redirects" label="OAuth redirect URLs" hint="One per line, matched exactly.">
            <textarea id="s-redirects" rows={3} aria-describedby="s-redirects-hint" value={form.redirectUrls} onInput={set('redirectUrls')} />
          </Field>
          <Field id="s-magic" label="Magic-link page URL">
            <input id="s-magic" type="url" value={form.magicLinkUrl} onInput={set('magicLinkUrl')} />
          </Field>
          <Field id="s-reset" label="Password-reset page URL">
            <input id="s-reset" type="url" value={form.passwordResetUrl} onInput={set('passwordResetUrl')} />
          </Field>
          <Field id="s-access" label="Access-token lifetime (seconds)">
            <input id="s-access" type="number" min={60} max={86400} value={form.accessTokenTtlSeconds} onInput={set('accessTokenTtlSeconds')} />
          </Field>
          <Field id="s-refresh" label="Refresh-token lifetime (seconds)">
            <input id="s-refresh" type="number" min={300} value={form.refreshTokenTtlSeconds} onInput={set('refreshTokenTtlSeconds')} />
          </Field>
          <Field id="s-grace" label="Refresh reuse grace window (seconds)" hint="0 treats every reuse as a replay.">
            <input id="s-grace" type="number" min={0} max={60} aria-describedby="s-grace-hint" value={form.refreshReuseGraceSeconds} onInput={set('refreshReuseGraceSeconds')} />
          </Field>
          <Field id="s-replay" label="A replayed refresh token ends" hint="Someone presented a refresh token that was already used.">
            <select id="s-replay" aria-describedby="s-replay-hint" value={form.refreshReuseResponse} onChange={set('refreshReuseResponse')}>
              <option value="revoke_all_sessions">every session of the user</option>
              <option value="revoke_session">only that session</option>
            </select>
          </Field>
          <div class="field field-check">
            <input
              id="s-replay-notice"
              type="checkbox"
              checked={form.refreshReuseNotice}
              onChange={(e) => setForm({ ...form, refreshReuseNotice: e.currentTarget.checked })}
            />
            <label for="s-replay-notice">Mail the user when a replay ends their sessions</label>
          </div>
          <Field id="s-retention" label="Audit log retention (days)">
            <input id="s-retention" type="number" min={1} max={3650} value={form.auditRetentionDays} onInput={set('auditRetentionDays')} />
          </Field>
          <Field id="s-meta" label="Default meta (JSON object)" hint="Merged into the meta of every new user.">
            <textarea
              id="s-meta"
              class="code"
              rows={4}
              spellcheck={false}
              aria-invalid={defaultMeta.problem ? 'true' : 'false'}
              aria-describedby="s-meta-hint"
              value={form.defaultMeta}
              onInput={set('defaultMeta')}
            />
          </Field>
          <Field id="s-rpid" label="Passkeys: relying party id" hint="Empty: taken from the first allowed origin.">
            <input id="s-rpid" placeholder="example.com" aria-describedby="s-rpid-hint" value={form.rpId} onInput={set('rpId')} />
          </Field>
          <Field id="s-rpname" label="Passkeys: name shown">
            <input id="s-rpname" value={form.rpName} onInput={set('rpName')} />
          </Field>
          <Field id="s-rporigins" label="Passkeys: origins" hint="One per line; the RP id or its subdomains.">
            <textarea id="s-rporigins" rows={2} aria-describedby="s-rporigins-hint" value={form.rpOrigins} onInput={set('rpOrigins')} />
          </Field>
          {defaultMeta.problem ? (
            <p class="field-problem" role="alert">
              {defaultMeta.problem}
            </p>
          ) : null}
          <div class="form-actions">
            <button class="button button-primary" type="submit" disabled={save.busy || !!defaultMeta.problem}>
              Save settings
            </button>
          </div>
        </form>
        {save.error ? <Alert>{save.error}</Alert> : null}
        {saved ? <Alert tone="success">Settings saved.</Alert> : null}
      </Card>
      {children}
      <Card title="Delete project">
        <p>Deletes both environments with every user, session, key and mail. This cannot be undone.</p>
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            void remove.run(async () => {
              await api.deleteProject(project.id);
              navigate('#/projects');
            });
          }}
        >
          <label for="confirm-delete">Type the project's name to confirm</label>
          <input id="confirm-delete" value={confirm} onInput={(e) => setConfirm(e.currentTarget.value)} />
          <button class="button button-danger" type="submit" disabled={confirm !== project.name || remove.busy}>
            Delete project
          </button>
        </form>
        {remove.error ? <Alert>{remove.error}</Alert> : null}
      </Card>
    </div>
  );
}
