export const ENVIRONMENTS = ['production', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Every port method that touches tenant data takes this explicitly. */
export interface TenantScope {
  readonly projectId: string;
  readonly environment: Environment;
}

export function isEnvironment(value: unknown): value is Environment {
  return typeof value === 'string' && (ENVIRONMENTS as readonly string[]).includes(value);
}

/** The message for a `field` that is not an environment. */
export function environmentMessage(field: string): string {
  return `${field} must be one of ${ENVIRONMENTS.join(', ')}.`;
}

export function sameScope(a: TenantScope, b: TenantScope): boolean {
  return a.projectId === b.projectId && a.environment === b.environment;
}

/**
 * How a key or token names its environment in its prefix, `<kind>_<marker>_`: API keys
 * (`svc_live_…`, `svc_sbx_…`), mailed links (`ml_live_…`, `pr_sbx_…`) and OAuth states
 * (`os_live_…`). Calls that carry no API key find the one scope to look in from it.
 */
export const ENVIRONMENT_MARKERS: Readonly<Record<Environment, string>> = { production: 'live', sandbox: 'sbx' };

/** The prefix of a `kind` of key or token for `environment`, e.g. `svc_live_`. */
export function environmentPrefix(kind: string, environment: Environment): string {
  return `${kind}_${ENVIRONMENT_MARKERS[environment]}_`;
}

/** The environment whose `kind` prefix `value` starts with, and what follows it; null for any other prefix. */
export function splitEnvironmentPrefix(kind: string, value: string): { environment: Environment; rest: string } | null {
  for (const environment of ENVIRONMENTS) {
    const prefix = environmentPrefix(kind, environment);
    if (value.startsWith(prefix)) return { environment, rest: value.slice(prefix.length) };
  }
  return null;
}
