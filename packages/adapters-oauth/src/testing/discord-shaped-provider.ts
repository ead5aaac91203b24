import { CodeGrantServer } from './code-grant-server';

/** A Discord user as `/users/@me` shows it with the `identify email` scopes. */
export interface DiscordAccount {
  id: string;
  username: string;
  email: string | null;
  verified: boolean;
}

/** Discord's OAuth2 flow on loopback: `/oauth2/authorize`, `/api/oauth2/token`, `/api/users/@me`. */
export async function startDiscordShapedProvider(client: { clientId: string; clientSecret: string }, account: DiscordAccount) {
  const server = new CodeGrantServer<DiscordAccount>({ ...client, paths: { authorize: '/oauth2/authorize', token: '/api/oauth2/token' }, tokenErrorStatus: 400, tokenType: 'Bearer' }, account);
  server.resource('/api/users/@me', (a) => ({ id: a.id, username: a.username, email: a.email, verified: a.verified }));
  await server.start();
  return Object.assign(server, {
    endpoints: () => ({
      authorizationUrl: `${server.url}/oauth2/authorize`,
      tokenUrl: `${server.url}/api/oauth2/token`,
      userInfoUrl: `${server.url}/api/users/@me`,
    }),
  });
}
