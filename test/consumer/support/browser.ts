/**
 * A browser, as far as the session proxy can tell: fetch with a cookie jar, the page's Origin on
 * every request, JSON bodies. Cookies are kept by name (one site, path /).
 */
export function browserAt(origin: string) {
  const jar = new Map<string, string>();
  return {
    cookies: () => new Map(jar),
    async request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any; setCookies: string[] }> {
      const headers: Record<string, string> = { origin };
      if (jar.size) headers.cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      if (body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(`${origin}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const setCookies = response.headers.getSetCookie();
      for (const cookie of setCookies) {
        const [pair, ...attributes] = cookie.split(';');
        const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
        const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
        if (expired || value === '') jar.delete(name);
        else jar.set(name, value);
      }
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, setCookies };
    },
  };
}
