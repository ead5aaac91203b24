import { Router } from 'express';
import { AuthError, type EmailVerificationInput } from '@svc/core';
import type { MailRouteDeps } from '../app-deps';
import { EmailResendDto, EmailVerifyDto } from '../dto/email-dtos';
import { apiKeyOf } from '../middleware/api-key';
import { EMAIL_VERIFY_RESEND_LIMITS } from '../middleware/rate-limit-rules';
import { bodyOf, validateBody } from '../middleware/validate';
import { mailRequestHandlers } from './mail-request';
import { keyed, limited } from './guards';

const RESEND_PATH = '/api/auth/email/verify/resend';

/**
 * E-mail verification of password sign-ups (API key): confirming with the link's token or the
 * mail's code, and mailing them again. The resend always answers success, before it looks the
 * address up.
 */
export function emailVerifyRoutes(deps: MailRouteDeps): Router {
  return Router()
    .post('/api/auth/email/verify', ...keyed(deps), validateBody(EmailVerifyDto), limited(deps, 'emailVerify'), async (_req, res) => {
      const user = await deps.auth.emailVerification.verify(apiKeyOf(res), verificationInput(bodyOf(res, EmailVerifyDto)));
      res.json({ data: { user: { id: user.id, email: user.email, emailVerified: user.emailVerified } } });
    })
    .post(
      RESEND_PATH,
      ...mailRequestHandlers(deps, {
        path: RESEND_PATH,
        Dto: EmailResendDto,
        limits: EMAIL_VERIFY_RESEND_LIMITS,
        kind: 'email_verification',
        accept: (_req, res, body) => deps.auth.emailVerification.acceptResend(apiKeyOf(res), body),
      }),
    );
}

/** Exactly one form: `{ token }` or `{ email, code }`. */
function verificationInput(body: EmailVerifyDto): EmailVerificationInput {
  if (body.token !== undefined && body.email === undefined && body.code === undefined) return { token: body.token };
  if (body.token === undefined && body.email !== undefined && body.code !== undefined) return { email: body.email, code: body.code };
  throw new AuthError('validation_error', 'Send either token, or email and code.');
}
