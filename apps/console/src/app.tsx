import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, resume, signIn, signOut, whenSignedOut, type Environment, type Project } from './api';
import { AuditLog } from './audit-log';
import { EmailTemplatesCard } from './email-templates';
import { Inbox } from './inbox';
import { Overview } from './overview';
import { ApiKeys } from './keys';
import { ProjectList, ProjectSettings } from './projects';
import { navigate, useRoute } from './router';
import { SignInMethods } from './sign-in-methods';
import { Alert, useAction, useLoad } from './ui';
import { UserDetailView, UserList } from './users';
import { Webhooks } from './webhooks';

function SignIn({ onSignedIn }: { onSignedIn(): void }) {
  const [token, setToken] = useState('');
  const action = useAction();
  return (
    <main class="signin" id="main">
      <form
        class="card signin-card"
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => {
            await signIn(token);
            setToken('');
            onSignedIn();
          });
        }}
      >
        <h1 class="brand">
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          svc console
        </h1>
        <p class="muted">Sign in with the service's admin token (SVC_ADMIN_TOKEN). It is exchanged for a session cookie and not kept by the browser.</p>
        <div class="field">
          <label for="admin-token">Admin token</label>
          <input id="admin-token" type="password" autoComplete="current-password" required value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </div>
        {action.error ? <Alert>{action.error}</Alert> : null}
        <button class="button button-primary button-wide" type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

const TABS = [
  ['overview', 'Overview'],
  ['users', 'Users'],
  ['settings', 'Settings'],
  ['keys', 'Keys'],
  ['sign-in', 'Sign-in methods'],
  ['inbox', 'Sandbox inbox'],
  ['audit-log', 'Audit log'],
  ['webhooks', 'Webhooks'],
] as const;

function ProjectScreen({ projectId, env, tab, rest }: { projectId: string; env: Environment; tab: string; rest: string[] }) {
  const loaded = useLoad(() => api.getProject(projectId), [projectId]);
  const [project, setProject] = useState<Project | null>(null);
  useEffect(() => setProject(loaded.data?.project ?? null), [loaded.data]);
  if (loaded.error) return <Alert>{loaded.error}</Alert>;
  if (!project) return <p aria-busy="true">Loading…</p>;
  const to = (nextEnv: Environment, nextTab = tab) => `#/projects/${project.id}/${nextEnv}/${nextTab}`;
  return (
    <div class="stack">
      <div class="project-head">
        <div>
          <p class="crumbs">
            <a href="#/projects">Projects</a> /
          </p>
          <h1>{project.name}</h1>
        </div>
        <div class="env-switch" role="group" aria-label="Environment">
          <a class={env === 'production' ? 'env env-active' : 'env'} aria-current={env === 'production' ? 'true' : undefined} href={to('production')}>
            Production
          </a>
          <a class={env === 'sandbox' ? 'env env-active env-sandbox' : 'env'} aria-current={env === 'sandbox' ? 'true' : undefined} href={to('sandbox', tab === 'inbox' ? 'inbox' : tab)}>
            Sandbox
          </a>
        </div>
      </div>
      <nav class="tabs" aria-label="Project">
        {TABS.map(([id, label]) => (
          <a key={id} class={tab === id ? 'tab tab-active' : 'tab'} aria-current={tab === id ? 'page' : undefined} href={to(id === 'inbox' ? 'sandbox' : env, id)}>
            {label}
          </a>
        ))}
      </nav>
      {tab === 'users' && rest[0] ? <UserDetailView project={project} env={env} userId={rest[0]} /> : null}
      {tab === 'users' && !rest[0] ? <UserList project={project} env={env} /> : null}
      {tab === 'overview' ? <Overview project={project} env={env} /> : null}
      {tab === 'settings' ? (
        <ProjectSettings project={project} onChange={setProject}>
          <EmailTemplatesCard project={project} onChange={setProject} />
        </ProjectSettings>
      ) : null}
      {tab === 'keys' ? <ApiKeys project={project} env={env} /> : null}
      {tab === 'sign-in' ? <SignInMethods project={project} env={env} /> : null}
      {tab === 'inbox' ? <Inbox project={project} /> : null}
      {tab === 'audit-log' ? <AuditLog key={env} project={project} env={env} /> : null}
      {tab === 'webhooks' ? <Webhooks project={project} env={env} endpointId={rest[0]} /> : null}
    </div>
  );
}

function Console({ onSignOut }: { onSignOut(): void }) {
  const route = useRoute();
  const [section, projectId, env, tab = 'users', ...rest] = route;
  useEffect(() => {
    if (section !== 'projects') navigate('#/projects');
  }, [section]);
  const environment: Environment = env === 'sandbox' ? 'sandbox' : 'production';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="#/projects">
          <span class="logo" aria-hidden="true">
            ◆
          </span>{' '}
          svc console
        </a>
        <button class="button button-ghost" type="button" onClick={() => void signOut().finally(onSignOut)}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1} class="content">
        {projectId ? <ProjectScreen key={projectId} projectId={projectId} env={environment} tab={tab} rest={rest} /> : <ProjectList />}
      </main>
    </>
  );
}

function App() {
  const [state, setState] = useState<'checking' | 'signed-out' | 'signed-in'>('checking');
  useEffect(() => {
    whenSignedOut(() => setState('signed-out'));
    void resume().then((ok) => setState(ok ? 'signed-in' : 'signed-out'));
  }, []);
  if (state === 'checking') return <p class="content" aria-busy="true">Loading…</p>;
  if (state === 'signed-out') return <SignIn onSignedIn={() => setState('signed-in')} />;
  return <Console onSignOut={() => setState('signed-out')} />;
}

render(<App />, document.getElementById('app')!);
