/** An authorization request waiting for the project's login page (`POST /api/auth/oidc/grant`). */
export interface PendingOidcAuthorization {
  uid: string;
  clientId: string;
  /** The scopes the client asked for, as the provider accepted them (e.g. offline_access dropped). */
  requestedScopes: string[];
}

/**
 * The running OIDC provider as the grant use case sees it: find the authorization behind a
 * login-page hand-off and finish it. Implemented over oidc-provider's interactions; the returned
 * URL is the interaction's resume URL, which only the browser that started the flow can use.
 */
export interface OidcInteractionGateway {
  /** The pending authorization with this interaction uid, or null when it finished or expired. */
  pending(projectId: string, uid: string): Promise<PendingOidcAuthorization | null>;
  /**
   * Finishes it with the user logged in and a grant of exactly `scopes` (every other requested
   * scope rejected); answers the URL that resumes the flow and ends at the client with a code.
   */
  approve(projectId: string, uid: string, decision: { userId: string; scopes: string[] }): Promise<string>;
  /** Finishes it with `access_denied`; answers the URL that brings that error to the client. */
  deny(projectId: string, uid: string): Promise<string>;
}
