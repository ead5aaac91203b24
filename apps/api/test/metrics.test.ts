import { countEvents, createMetrics } from '../src/http/metrics';
import { DEFAULT_RATE_LIMITS } from '../src/http/middleware/rate-limit-rules';
import { ADMIN_TOKEN, buildTestApp, createProject, signUp } from './helpers';

const METRICS_TOKEN = 'metrics-scrape-token-0123456789abcdefghij';

/** The value of one sample line (`name{labels} value`), or 0 when absent. */
function sample(text: string, line: string): number {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found ? Number(found.slice(line.length + 1)) : 0;
}

describe('GET /metrics', () => {
  it('needs the admin token or the scrape-only metrics token', async () => {
    const { http } = buildTestApp({ config: { metricsToken: METRICS_TOKEN } });
    expect((await http.get('/metrics').expect(401)).body.error).toBe('unauthorized');
    await http.get('/metrics').set('Authorization', 'Bearer not-the-token').expect(401);
    const res = await http.get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    await http.get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    // The scrape token opens nothing else.
    await http.get('/admin/projects/00000000-0000-4000-8000-000000000000').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(401);
  });

  it('counts requests by route pattern and status, sign-ins, sign-ups, refreshes, replays and 429s by rule', async () => {
    const rateLimits = { ...structuredClone(DEFAULT_RATE_LIMITS), refresh: { limit: 3, windowSeconds: 60 } };
    const { app, http } = buildTestApp({ config: { rateLimits } });
    const project = await createProject(app);
    const { refreshToken } = await signUp(app, project.live, 'ada@example.com', 'correct horse');
    const key = (req: ReturnType<typeof http.post>) => req.set('X-API-Key', project.live);
    await key(http.post('/api/auth/login')).send({ email: 'ada@example.com', password: 'correct horse' }).expect(200);
    await key(http.post('/api/auth/login')).send({ email: 'ada@example.com', password: 'wrong horse' }).expect(401);
    await key(http.post('/api/auth/refresh')).send({ refreshToken }).expect(200);
    await key(http.post('/api/auth/refresh')).send({ refreshToken }).expect(401); // replay
    await key(http.post('/api/auth/refresh')).send({ refreshToken: 'unknown' }).expect(401);
    await key(http.post('/api/auth/refresh')).send({ refreshToken: 'unknown' }).expect(429);
    await http.get(`/api/projects/${project.id}/production/jwks.json`).expect(200);

    const text = (await http.get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200)).text;
    expect(sample(text, 'svc_http_requests_total{method="POST",route="/api/auth/login",status="200"}')).toBe(1);
    expect(sample(text, 'svc_http_requests_total{method="POST",route="/api/auth/login",status="401"}')).toBe(1);
    // The route pattern, never the path with its ids.
    expect(sample(text, 'svc_http_requests_total{method="GET",route="/api/projects/:projectId/:environment/jwks.json",status="200"}')).toBe(1);
    expect(text).not.toContain(project.id);
    expect(sample(text, 'svc_http_request_duration_seconds_count{method="POST",route="/api/auth/signup"}')).toBe(1);
    expect(sample(text, 'svc_sign_ins_total{route="/api/auth/login",result="success"}')).toBe(1);
    expect(sample(text, 'svc_sign_ins_total{route="/api/auth/login",result="failure"}')).toBe(1);
    expect(sample(text, 'svc_sign_ups_total{result="success"}')).toBe(1);
    expect(sample(text, 'svc_token_refreshes_total{result="success"}')).toBe(1);
    expect(sample(text, 'svc_token_refreshes_total{result="failure"}')).toBe(2);
    expect(sample(text, 'svc_refresh_replays_total')).toBe(1);
    expect(sample(text, 'svc_rate_limited_total{rule="refresh"}')).toBe(1);
  });

  it('each app has its own registry: nothing leaks between instances', async () => {
    const first = buildTestApp();
    const second = buildTestApp();
    await first.http.get('/healthz').expect(200);
    const text = (await second.http.get('/metrics').set('Authorization', `Bearer ${ADMIN_TOKEN}`).expect(200)).text;
    expect(sample(text, 'svc_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(0);
  });
});

describe('svc_outbox_depth', () => {
  it('is absent until a source is set, then read at scrape time', async () => {
    const metrics = createMetrics();
    expect(await metrics.registry.metrics()).not.toContain('svc_outbox_depth{');
    let pending = 3;
    metrics.setOutboxDepthSource(async () => ({ pending, sending: 1, sent: 10, dead: 0 }));
    expect(sample(await metrics.registry.metrics(), 'svc_outbox_depth{status="pending"}')).toBe(3);
    pending = 0;
    const text = await metrics.registry.metrics();
    expect(sample(text, 'svc_outbox_depth{status="pending"}')).toBe(0);
    expect(sample(text, 'svc_outbox_depth{status="sending"}')).toBe(1);
  });
});

describe('svc_refresh_replays_total', () => {
  it('counts a replay once its record is stored, not one whose record was refused (nothing was revoked)', async () => {
    const metrics = createMetrics();
    let refusing = true;
    const sink = countEvents({ emit: async () => (refusing ? Promise.reject(new Error('audit log refused')) : undefined) }, metrics);
    const scope = { projectId: '00000000-0000-4000-8000-000000000001', environment: 'production' as const };
    const replay = { type: 'refresh_token.reused' as const, userId: '00000000-0000-4000-8000-000000000002', data: { sessionId: 's', response: 'revoke_all_sessions' as const, sessionsRevoked: 1 } };
    await expect(sink.emit(scope, replay)).rejects.toThrow('audit log refused');
    expect(sample(await metrics.registry.metrics(), 'svc_refresh_replays_total')).toBe(0);
    refusing = false;
    await sink.emit(scope, replay);
    expect(sample(await metrics.registry.metrics(), 'svc_refresh_replays_total')).toBe(1);
  });
});
