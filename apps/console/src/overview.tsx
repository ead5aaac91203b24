import { api, type Project } from './api';
import { Card, useLoad, when } from './ui';

/** The project at a glance: users per environment (the user lists' totals) and its plan. */
export function Overview({ project }: { project: Project }) {
  const counts = useLoad(
    () => Promise.all([api.listUsers(project.id, 'production', { limit: 1 }), api.listUsers(project.id, 'sandbox', { limit: 1 })]),
    [project.id],
  );
  const [production, sandbox] = counts.data ?? [];
  const limit = typeof project.userLimit === 'number' ? project.userLimit.toLocaleString() : 'plan default';
  return (
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
  );
}
