// Lists what an Express 5 app or router really serves, by walking its router stack (router 2.x
// layers: `route` for a route, `handle.stack` for a mounted router, `rawPath` for the mount path).

/** One mounted route, its path in OpenAPI form (`/api/auth/passkeys/{id}`). */
interface MountedRoute {
  method: string;
  path: string;
}

export interface MountedRoutes {
  routes: MountedRoute[];
  /** Plain handlers mounted at a path (`app.use('/x', fn)`): they answer everything under it. */
  prefixMounts: string[];
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string | string[];
}

/** `/:id` -> `/{id}`, a wildcard `/*rest` -> `/{rest}`, and `/` + `/x` -> `/x`. */
function join(prefix: string, path: string): string {
  const joined = `${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1');
  return joined.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/** Every route of `app` (an Express app, whose stack is `app.router.stack`) or of a Router. */
export function mountedRoutes(appOrRouter: unknown): MountedRoutes {
  const root = appOrRouter as { router?: { stack: Layer[] }; stack?: Layer[] };
  const stack = root.router?.stack ?? root.stack;
  if (!stack) throw new Error('not an Express app or router');
  const found: MountedRoutes = { routes: [], prefixMounts: [] };
  walk(stack, '', found);
  const unique = new Map(found.routes.map((route) => [`${route.method} ${route.path}`, route]));
  return { routes: [...unique.values()], prefixMounts: [...new Set(found.prefixMounts)] };
}

function walk(stack: Layer[], prefix: string, found: MountedRoutes): void {
  for (const layer of stack) {
    if (layer.route) {
      for (const path of [layer.route.path].flat()) {
        for (const [method, on] of Object.entries(layer.route.methods)) if (on) found.routes.push({ method: method.toUpperCase(), path: join(prefix, path) });
      }
      continue;
    }
    const mount = [layer.rawPath ?? '/'].flat();
    for (const path of mount) {
      if (Array.isArray(layer.handle?.stack)) walk(layer.handle.stack, join(prefix, path), found);
      else if (path !== '/') found.prefixMounts.push(join(prefix, path));
    }
  }
}
