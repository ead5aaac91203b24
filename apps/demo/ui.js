// Small DOM helpers for the demo: views, form errors, notices and the account card.
import { renderSVG } from './vendor/qr.js';

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

/** Shows one `[data-view]` section and hides the others; focuses its first field. */
export function showView(name) {
  for (const view of $$('[data-view]')) view.hidden = view.dataset.view !== name;
  const signedIn = name === 'account';
  for (const element of $$('[data-when="signed-in"]')) element.hidden = !signedIn;
  const titles = {
    account: 'Your account',
    'sign-up': 'Create account',
    totp: 'Verify',
    loading: 'Loading',
    'reset-request': 'Reset password',
    'reset-password': 'New password',
    'check-email': 'Check your email',
  };
  document.title = `Fieldnotes · ${titles[name] ?? 'Sign in'}`;
  const first = $(`[data-view="${name}"] input`);
  if (first && name !== 'account') first.focus();
}

/** A message above the card: tone "ok" or "error"; empty text hides it. */
export function notify(text, tone = 'ok') {
  const notice = $('[data-notice]');
  notice.textContent = text;
  notice.dataset.tone = tone;
  notice.hidden = !text;
}

/** Clears every error of `form` (field messages, aria-invalid and the form-level alert). */
export function clearErrors(form) {
  for (const element of $$('[data-error-for]', form)) element.textContent = '';
  for (const input of $$('input', form)) input.removeAttribute('aria-invalid');
  const formError = form.querySelector('[data-form-error]') ?? form.parentElement.querySelector('[data-form-error]');
  if (formError) formError.textContent = '';
}

/** Marks one field invalid with `message`. */
export function fieldError(form, name, message) {
  const input = form.elements.namedItem(name);
  input.setAttribute('aria-invalid', 'true');
  const slot = $(`[data-error-for="${name}"]`, form);
  slot.id ||= `${form.dataset.form}-${name}-error`;
  slot.textContent = message;
  if ((input.getAttribute('aria-describedby') ?? '').includes(slot.id)) return;
  input.setAttribute('aria-describedby', [input.getAttribute('aria-describedby'), slot.id].filter(Boolean).join(' '));
}

/** Shows a form-level error (server answers that concern no single field). */
export function formError(form, message) {
  const slot = form.querySelector('[data-form-error]') ?? form.parentElement.querySelector('[data-form-error]');
  slot.textContent = message;
}

/** Disables a form's buttons while `work` runs, with a busy label on the submit button. */
export async function busy(button, label, work) {
  // innerHTML, not textContent: some buttons carry an icon. Both are our own static markup.
  const original = button.innerHTML;
  button.disabled = true;
  button.textContent = label;
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.innerHTML = original;
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const when = (iso) => (iso ? dateFormat.format(new Date(iso)) : 'Never');

/** Fills the account card and the top bar from a session. */
export function renderSession({ user, poweredByService }) {
  const values = {
    email: user.email,
    id: user.id,
    role: user.role,
    emailVerified: user.emailVerified ? 'Yes' : 'Not yet',
    createdAt: when(user.createdAt),
    lastLoginAt: when(user.lastLoginAt),
    initials: user.email.slice(0, 2).toUpperCase(),
  };
  for (const element of $$('[data-field]')) {
    const value = values[element.dataset.field];
    if (value !== undefined) element.textContent = value;
  }
  for (const badge of $$('[data-when="powered"]')) badge.hidden = !poweredByService;
}

/** Shows the TOTP enrolment panel: the otpauth URL as a QR code, the secret grouped in fours for reading. */
export function showTotpSetup({ secret, otpauthUrl }) {
  // renderSVG draws modules as paths from the encoded bits; no text of the URL enters the markup.
  $('[data-field="totpQr"]').innerHTML = renderSVG(otpauthUrl, { border: 2 });
  $('[data-field="totpSecret"]').textContent = secret.match(/.{1,4}/g).join(' ');
  $('[data-field="totpSecret"]').dataset.secret = secret;
  $('[data-field="totpLink"]').href = otpauthUrl;
  $('[data-panel="totp-setup"]').hidden = false;
  $('#totp-confirm-code').focus();
}

/** Replaces the enrolment panel with the recovery codes. */
export function showRecoveryCodes(codes) {
  $('[data-panel="totp-setup"]').hidden = true;
  const list = $('[data-field="recoveryCodes"]');
  list.replaceChildren(...codes.map((code) => Object.assign(document.createElement('li'), { textContent: code })));
  $('[data-panel="recovery-codes"]').hidden = false;
  $('[data-field="totpStatus"]').textContent = 'On: a code is asked after your password.';
  $('[data-action="totp-setup"]').hidden = true;
}

/** A short name for a browser from its user agent (the list shows the whole string on hover). */
function deviceName(userAgent) {
  if (!userAgent) return 'Unknown device';
  const browser = /(Firefox|Edg|Chrome|Safari)\/[\d.]+/.exec(userAgent)?.[1]?.replace('Edg', 'Edge') ?? 'Browser';
  const system = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(userAgent)?.[1]?.replace('Mac OS X', 'macOS') ?? 'another system';
  return `${browser} on ${system}`;
}

/** Fills the device list: one row per session, an "End session" button on every other one. */
export function renderDevices(sessions, onSignOut) {
  const rows = sessions.map((session) => {
    const row = document.createElement('li');
    const text = document.createElement('div');
    const name = Object.assign(document.createElement('div'), { className: 'device-name', textContent: deviceName(session.userAgent), title: session.userAgent ?? '' });
    const meta = Object.assign(document.createElement('div'), {
      className: 'device-meta',
      textContent: `${session.current ? 'This device · ' : ''}${session.address ?? 'unknown address'} · last active ${when(session.lastUsedAt)}`,
    });
    text.append(name, meta);
    row.append(text);
    if (!session.current) {
      const button = Object.assign(document.createElement('button'), { type: 'button', className: 'button button-ghost', textContent: 'End session' });
      button.setAttribute('aria-label', `End session on ${name.textContent}`);
      button.addEventListener('click', () => onSignOut(session, button));
      row.append(button);
    }
    return row;
  });
  $('[data-field="devices"]').replaceChildren(...rows);
}

export { $, $$ };
