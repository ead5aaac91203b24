// Fieldnotes demo: how a browser app uses the svc session proxy through @svc/client.
// The page never sees a token: the proxy keeps them in HttpOnly cookies on this origin.
import { createSessionClient } from './vendor/svc-client.js';
import { describeError, fieldProblem } from './messages.js';
import { $, $$, busy, clearErrors, fieldError, formError, notify, renderDevices, renderSession, showRecoveryCodes, showTotpSetup, showView } from './ui.js';

const config = await loadConfig();
const client = createSessionClient({ routePrefix: config.routePrefix });
/** The pending second-factor challenge of a sign-in, between the password and the code. */
let challenge = null;

/** config.json says which OAuth providers the project has enabled (the API has no public list). */
async function loadConfig() {
  // emailVerification: the project mails sign-ups a link and a code (its emailVerification setting).
  const defaults = { appName: 'Fieldnotes', routePrefix: '/api/session', oauthProviders: [], emailVerification: false };
  try {
    const response = await fetch('config.json', { cache: 'no-store' });
    return response.ok ? { ...defaults, ...(await response.json()) } : defaults;
  } catch {
    return defaults;
  }
}

/** Validates every field of `form` in the browser first; true when all are fine. */
function validate(form, names) {
  clearErrors(form);
  let valid = true;
  for (const name of names) {
    const problem = fieldProblem(form.elements.namedItem(name));
    if (problem) {
      fieldError(form, name, problem);
      valid = false;
    }
  }
  if (!valid) form.querySelector('[aria-invalid="true"]').focus();
  return valid;
}

/** Shows a server answer on the form: next to the field it concerns, or above the button. */
function showFailure(form, error) {
  if (error.code === 'user_already_exists') return fieldError(form, 'email', describeError(error));
  if (error.code === 'invalid_totp_code') return fieldError(form, 'code', describeError(error));
  formError(form, describeError(error));
}

async function enterAccount(message) {
  const session = await client.session();
  if (!session) return showView('sign-in');
  renderSession(session);
  $('[data-panel="verify-email"]').hidden = !config.emailVerification || session.user.emailVerified === true;
  showView('account');
  notify(message ?? '');
  await refreshDevices();
}

/** The device list of the account page. */
async function refreshDevices() {
  renderDevices(await client.sessions(), async (session, button) => {
    await busy(button, 'Ending…', async () => {
      try {
        await client.revokeSession(session.id);
        notify('That session has ended; the device is signed out.');
        await refreshDevices();
      } catch (error) {
        notify(describeError(error), 'error');
      }
    });
  });
}

/** A wrong current password is told at its field, not as "email and password don't match". */
function showPasswordFailure(form, error) {
  if (error.code === 'invalid_credentials') return fieldError(form, 'currentPassword', 'That password isn’t right.');
  if (error.code === 'validation_error' && /newPassword/.test(error.message)) return fieldError(form, 'newPassword', error.message.replace('newPassword', 'The new password'));
  showFailure(form, error);
}

/** After a password (or OAuth) step: either signed in, or on to the code. */
async function afterFirstFactor(result, greeting) {
  if (result.twoFactorRequired) {
    challenge = result;
    notify('');
    return showView('totp');
  }
  await enterAccount(greeting);
}

function on(selector, event, handler) {
  for (const element of $$(selector)) element.addEventListener(event, handler);
}

on('[data-form="sign-in"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['email', 'password'])) return;
  const { email, password } = Object.fromEntries(new FormData(form));
  await busy(form.querySelector('[type="submit"]'), 'Signing in…', async () => {
    try {
      await afterFirstFactor(await client.login({ email: email.trim(), password }), 'Welcome back.');
      form.reset();
    } catch (error) {
      showFailure(form, error);
    }
  });
});

on('[data-form="sign-up"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['email', 'password'])) return;
  const { email, password } = Object.fromEntries(new FormData(form));
  await busy(form.querySelector('[type="submit"]'), 'Creating your account…', async () => {
    try {
      await client.signup({ email: email.trim(), password, meta: { signedUpFrom: 'fieldnotes-demo' } });
      form.reset();
      await enterAccount('Your account is ready. Welcome to Fieldnotes!');
    } catch (error) {
      showFailure(form, error);
    }
  });
});

on('[data-form="totp"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['code'])) return;
  const code = form.elements.namedItem('code').value.replace(/\s/g, '');
  await busy(form.querySelector('[type="submit"]'), 'Verifying…', async () => {
    try {
      await client.verifyTotp({ twoFactorToken: challenge?.twoFactorToken ?? '', code });
      challenge = null;
      form.reset();
      await enterAccount('Welcome back.');
    } catch (error) {
      if (error.code === 'invalid_two_factor_token') showView('sign-in');
      showFailure(form, error);
    }
  });
});

on('[data-action="passkey-sign-in"]', 'click', async (event) => {
  const form = $('[data-form="sign-in"]');
  clearErrors(form);
  const problem = fieldProblem(form.elements.namedItem('email'));
  if (problem) return fieldError(form, 'email', `${problem} Passkeys are looked up by email.`);
  await busy(event.currentTarget, 'Waiting for your passkey…', async () => {
    try {
      await client.passkeyLogin(form.elements.namedItem('email').value.trim());
      form.reset();
      await enterAccount('Signed in with your passkey.');
    } catch (error) {
      formError(form, describeError(error));
    }
  });
});

on('[data-action="oauth"]', 'click', async (event) => {
  const provider = event.currentTarget.dataset.provider;
  try {
    // Back to this page; the code in the URL is exchanged on load (see handleOAuthReturn).
    await client.oauthStart(provider, `${location.origin}${location.pathname}`);
  } catch (error) {
    formError($('[data-form="sign-in"]'), describeError(error));
  }
});

on('[data-action="sign-out"]', 'click', async () => {
  await client.logout().catch(() => {});
  showView('sign-in');
  notify('You have been signed out.');
});

on('[data-action="add-passkey"]', 'click', async (event) => {
  await busy(event.currentTarget, 'Follow your browser’s prompt…', async () => {
    try {
      await client.passkeyRegister('Passkey on this device');
      notify('Passkey added. Next time, sign in with it instead of your password.');
    } catch (error) {
      notify(describeError(error), 'error');
    }
  });
});

on('[data-action="totp-setup"]', 'click', async (event) => {
  await busy(event.currentTarget, 'Preparing…', async () => {
    try {
      showTotpSetup(await client.totpSetup());
    } catch (error) {
      notify(describeError(error), 'error');
    }
  });
});

on('[data-form="totp-confirm"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['code'])) return;
  try {
    const { recoveryCodes } = await client.totpConfirm(form.elements.namedItem('code').value.replace(/\s/g, ''));
    form.reset();
    showRecoveryCodes(recoveryCodes);
    notify('Two-step verification is on.');
  } catch (error) {
    showFailure(form, error);
  }
});

on('[data-action="sign-out-others"]', 'click', async (event) => {
  await busy(event.currentTarget, 'Ending…', async () => {
    try {
      const { revoked } = await client.revokeOtherSessions();
      notify(revoked === 1 ? 'One other device has been signed out.' : `${revoked} other devices have been signed out.`);
      await refreshDevices();
    } catch (error) {
      notify(describeError(error), 'error');
    }
  });
});

on('[data-form="change-password"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['currentPassword', 'newPassword'])) return;
  const value = (name) => form.elements.namedItem(name).value;
  await busy(form.querySelector('[type="submit"]'), 'Changing…', async () => {
    try {
      await client.changePassword({ currentPassword: value('currentPassword'), newPassword: value('newPassword') });
      form.reset();
      notify('Password changed. Your other devices have been signed out.');
      await refreshDevices();
    } catch (error) {
      showPasswordFailure(form, error);
    }
  });
});

on('[data-form="delete-account"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['currentPassword'])) return;
  await busy(form.querySelector('[type="submit"]'), 'Deleting…', async () => {
    try {
      await client.deleteAccount({ currentPassword: form.elements.namedItem('currentPassword').value });
      form.reset();
      showView('sign-in');
      notify('Your account has been deleted.');
    } catch (error) {
      showPasswordFailure(form, error);
    }
  });
});

on('[data-form="verify-email"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['code'])) return;
  try {
    const session = await client.session();
    await client.verifyEmail({ email: session.user.email, code: form.elements.namedItem('code').value.replace(/\s/g, '') });
    form.reset();
    await enterAccount('Your email address is confirmed.');
  } catch (error) {
    if (error.code === 'invalid_verification') return fieldError(form, 'code', describeError(error));
    showFailure(form, error);
  }
});

on('[data-action="resend-verification"]', 'click', async (event) => {
  await busy(event.currentTarget, 'Sending…', async () => {
    try {
      const session = await client.session();
      await client.resendVerification(session.user.email);
      notify('We sent the email again. The newest link and code replace the older ones.');
    } catch (error) {
      notify(describeError(error), 'error');
    }
  });
});

/** A mail request (magic link, reset): the same answer whether or not the address has an account. */
async function requestMail(form, sentTo, send) {
  if (!validate(form, ['email'])) return;
  const email = form.elements.namedItem('email').value.trim();
  await busy(form.querySelector('[type="submit"]'), 'Sending…', async () => {
    try {
      await send(email);
      form.reset();
      $('[data-field="checkEmail"]').textContent = sentTo(email);
      notify('');
      showView('check-email');
    } catch (error) {
      showFailure(form, error);
    }
  });
}

on('[data-form="magic-link-request"]', 'submit', async (event) => {
  event.preventDefault();
  await requestMail(
    event.currentTarget,
    (email) => `We sent a sign-in link to ${email}.`,
    (email) => client.magicLink({ email }),
  );
});

on('[data-form="reset-request"]', 'submit', async (event) => {
  event.preventDefault();
  await requestMail(
    event.currentTarget,
    (email) => `If ${email} belongs to an account, a link to choose a new password is on its way.`,
    (email) => client.passwordReset(email),
  );
});

/** The token of the reset link this page was opened with, kept until the new password is set. */
let resetToken = null;

on('[data-form="reset-password"]', 'submit', async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  if (!validate(form, ['email', 'newPassword'])) return;
  const email = form.elements.namedItem('email').value.trim();
  const newPassword = form.elements.namedItem('newPassword').value;
  await busy(form.querySelector('[type="submit"]'), 'Saving…', async () => {
    try {
      await client.passwordUpdate({ token: resetToken ?? '', newPassword });
    } catch (error) {
      if (error.code === 'validation_error' && /newPassword/.test(error.message)) return fieldError(form, 'newPassword', error.message.replace('newPassword', 'The new password'));
      return showFailure(form, error);
    }
    resetToken = null;
    form.reset();
    try {
      await afterFirstFactor(await client.login({ email, password: newPassword }), 'Your password has been changed. Welcome back.');
    } catch (error) {
      // The token was good, so the password is set; only the address can have been mistyped.
      showView('sign-in');
      notify(`Your password has been changed. ${describeError(error)}`, 'error');
    }
  });
});

on('[data-go]', 'click', (event) => {
  event.preventDefault();
  notify('');
  showView(event.currentTarget.dataset.go);
});

/** Back from the identity provider: `?code=...&provider=...` (or `?error=...`). */
async function handleOAuthReturn() {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return false;
  history.replaceState(null, '', location.pathname);
  if (params.has('error')) {
    showView('sign-in');
    notify('Sign-in with the provider was cancelled or refused.', 'error');
    return true;
  }
  await afterFirstFactor(await client.oauthExchange(params.get('code')), 'Signed in.');
  return true;
}

/** Opened from the verification email: `?token=ev_...` (the project's emailVerificationUrl is this page). */
async function handleVerificationLink() {
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  if (!token?.startsWith('ev_')) return false;
  history.replaceState(null, '', location.pathname);
  try {
    await client.verifyEmail({ token });
    await enterAccount('Your email address is confirmed.');
    if (!(await client.session())) notify('Your email address is confirmed. You can sign in now.');
  } catch (error) {
    showView('sign-in');
    notify(describeError(error), 'error');
  }
  return true;
}

/** The magic link this page was opened with, redeemed when the user presses Continue. */
let magicLink = null;

on('[data-action="use-magic-link"]', 'click', async (event) => {
  const button = event.currentTarget;
  await busy(button, 'Signing in…', async () => {
    try {
      const result = await client.verifyMagicLink(magicLink ?? { token: '', project: '' });
      magicLink = null;
      await afterFirstFactor(result, 'Signed in with your email link.');
    } catch (error) {
      magicLink = null;
      showView('sign-in');
      notify(describeError(error), 'error');
    }
  });
});

/**
 * Opened from a magic-link or reset mail: `?token=ml_...&project=...` or `?token=pr_...` (the
 * project's magicLinkUrl and passwordResetUrl are this page; the token's marker says which mail).
 * The token leaves the address bar at once. Nothing is redeemed on load: a mail scanner that opens
 * the link must not use it up (docs/integration.md), so the user presses Continue (magic link) or
 * sets the new password (reset).
 */
function handleMailLink() {
  const params = new URLSearchParams(location.search);
  const token = params.get('token') ?? '';
  if (!token.startsWith('ml_') && !token.startsWith('pr_')) return false;
  history.replaceState(null, '', location.pathname);
  if (token.startsWith('pr_')) {
    resetToken = token;
    showView('reset-password');
  } else {
    magicLink = { token, project: params.get('project') ?? '' };
    showView('magic-link');
  }
  return true;
}

async function start() {
  for (const button of $$('[data-action="oauth"]')) button.hidden = !config.oauthProviders.includes(button.dataset.provider);
  for (const name of $$('[data-app-name]')) name.textContent = config.appName;
  try {
    if (!(await handleVerificationLink()) && !handleMailLink() && !(await handleOAuthReturn())) await enterAccount();
  } catch (error) {
    showView('sign-in');
    notify(describeError(error), 'error');
  }
}

await start();
