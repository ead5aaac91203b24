import { CodeGrantServer } from './code-grant-server';

/** A GitHub account as its REST API shows it. */
export interface GitHubAccount {
  id: number;
  login: string;
  /** The public profile address: GitHub does not vouch for it. */
  publicEmail: string | null;
  emails: { email: string; primary: boolean; verified: boolean; visibility: 'public' | 'private' | null }[];
}

/**
 * GitHub's OAuth app flow on loopback: `/login/oauth/authorize`, `/login/oauth/access_token`
 * (a refused code answers 200 with an error body, as GitHub does), `/user` and `/user/emails`.
 */
export async function startGitHubShapedProvider(client: { clientId: string; clientSecret: string }, account: GitHubAccount) {
  const server = new CodeGrantServer<GitHubAccount>(
    { ...client, paths: { authorize: '/login/oauth/authorize', token: '/login/oauth/access_token' }, tokenErrorStatus: 200, tokenType: 'bearer' },
    account,
  );
  server.resource('/user', (a) => ({ id: a.id, login: a.login, email: a.publicEmail }));
  server.resource('/user/emails', (a) => a.emails);
  await server.start();
  return Object.assign(server, {
    /** The admin API's endpoint fields pointing at this server. */
    endpoints: () => ({
      authorizationUrl: `${server.url}/login/oauth/authorize`,
      tokenUrl: `${server.url}/login/oauth/access_token`,
      userInfoUrl: `${server.url}/user`,
    }),
  });
}
