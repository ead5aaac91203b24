import { ADMIN_TOKEN } from './svc';

/** The searches a console user types: a rare exact-ish part, a common part, a domain, a miss. */
const QUERIES = ['bench-user-4242', 'user-99', 'example.test', 'nobody-here'];

export interface SearchLatency {
  requests: number;
  p50: number;
  p95: number;
  queries: string[];
}

/**
 * Latency of the admin API's user search (`?q=`, first page of 50 with its `total`), one request
 * at a time so each figure is the query's own cost, not queueing. Every answer must be a 200.
 */
export async function measureUserSearch(apiUrl: string, projectId: string, requests = 200): Promise<SearchLatency> {
  const took: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    const q = QUERIES[i % QUERIES.length];
    const started = performance.now();
    const res = await fetch(`${apiUrl}/admin/projects/${projectId}/environments/production/users?q=${encodeURIComponent(q)}&limit=50`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    await res.arrayBuffer();
    took.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`user search answered ${res.status}`);
  }
  took.sort((a, b) => a - b);
  const at = (p: number) => Math.round(took[Math.min(took.length - 1, Math.ceil(p * took.length) - 1)] * 10) / 10;
  return { requests, p50: at(0.5), p95: at(0.95), queries: QUERIES };
}
