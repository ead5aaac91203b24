/**
 * One browser hop, by hand: GET `url` without following redirects and return where the 302 points.
 * End-to-end tests walk initiate -> provider -> callback -> caller's page with this.
 */
export async function followRedirect(url: string): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (response.status !== 302 || !location) throw new Error(`expected a 302 from ${new URL(url).pathname}, got ${response.status}`);
  return new URL(location, url);
}
