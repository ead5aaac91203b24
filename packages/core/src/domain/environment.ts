export const ENVIRONMENTS = ['production', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Every port method that touches tenant data takes this explicitly. */
export interface TenantScope {
  readonly projectId: string;
  readonly environment: Environment;
}

export function isEnvironment(value: unknown): value is Environment {
  return value === 'production' || value === 'sandbox';
}

export function sameScope(a: TenantScope, b: TenantScope): boolean {
  return a.projectId === b.projectId && a.environment === b.environment;
}
