import type { KoaContextWithOIDC } from 'oidc-provider';

// The only HTML the issuer serves: RP-initiated logout asks the user to confirm (oidc-provider's
// CSRF protection for logout), then says it is done. No scripts, so the API's strict CSP holds.

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`;
}

/** logoutSource: `form` is oidc-provider's hidden form (id op.logoutForm) carrying the xsrf token. */
export async function logoutPage(ctx: KoaContextWithOIDC, form: string): Promise<void> {
  const app = ctx.oidc.client?.clientName;
  ctx.type = 'html';
  ctx.body = page(
    'Sign out',
    `${form}<h1>Sign out${app ? ` of ${escapeHtml(app)}` : ''}?</h1>` +
      '<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button> ' +
      '<button type="submit" form="op.logoutForm">Stay signed in</button>',
  );
}

/** postLogoutSuccessSource: shown when the client named no post_logout_redirect_uri. */
export async function postLogoutPage(ctx: KoaContextWithOIDC): Promise<void> {
  ctx.type = 'html';
  ctx.body = page('Signed out', '<h1>You are signed out.</h1>');
}
