/**
 * A browser, as far as the session proxy can tell: fetch with a cookie jar, the page's Origin on
 * every request, JSON bodies. Cookies are kept by name (one site, path /).
 */
function browserAt(origin: string) {
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

export type Browser = ReturnType<typeof browserAt>;

/**
 * The session flow of a customer's app with the session proxy under /api/session and a guarded
 * `GET /api/notes` answering `{ owner, email }` from the user the guard found: the guarded route
 * refuses a stranger, sign-up sets the cookies (no token in the body), the session names the
 * user, and the guarded route opens. Answers the signed-in browser and the user's id.
 */
export async function signUpAndOpenGuardedRoute(origin: string, email: string): Promise<{ browser: Browser; userId: string }> {
  const browser = browserAt(origin);
  expect((await browser.request('GET', '/api/notes')).status).toBe(401);
  const signup = await browser.request('POST', '/api/session/signup', { email, password: 'correct horse battery' });
  expect(signup.status).toBe(201);
  expect(JSON.stringify(signup.body)).not.toMatch(/accessToken|refreshToken/);
  expect([...browser.cookies().keys()].sort()).toEqual(['svc_at', 'svc_did', 'svc_rt']);
  const session = await browser.request('GET', '/api/session/session');
  expect(session).toMatchObject({ status: 200, body: { data: { user: { email } } } });
  const userId: string = session.body.data.user.id;
  expect(await browser.request('GET', '/api/notes')).toMatchObject({ status: 200, body: { owner: userId, email } });
  return { browser, userId };
}
