/** What one browser hop answered. */
export interface Hop {
  status: number;
  location: string | null;
  text: string;
}

/**
 * A browser, by hand: fetch with `redirect: 'manual'` and a cookie jar for one origin (paths and
 * expiry are ignored: a test browser lives for one flow). Tests follow each redirect themselves.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  async get(url: string | URL): Promise<Hop> {
    return this.send(String(url), { method: 'GET' });
  }

  async postForm(url: string, fields: Record<string, string>): Promise<Hop> {
    return this.send(url, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  }

  private async send(url: string, init: { method: string; body?: URLSearchParams; headers?: Record<string, string> }): Promise<Hop> {
    if (new URL(url).origin !== this.origin) throw new Error(`the test browser only visits ${this.origin}, not ${url}`);
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...init.headers, ...(cookie ? { cookie } : {}) } });
    for (const line of res.headers.getSetCookie()) this.keep(line);
    return { status: res.status, location: res.headers.get('location'), text: await res.text() };
  }

  private keep(setCookie: string): void {
    const [pair, ...attributes] = setCookie.split(';');
    const eq = pair.indexOf('=');
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a)) || value === '';
    if (expired) this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}
