import { AuthError } from '../../errors';
import { emailTemplatesProblem, type EmailTemplates } from '../../domain/email-templates';

/** Template overrides that could never make a usable mail are refused when set, not at send time. */
export function assertEmailTemplates(templates: EmailTemplates | null | undefined): void {
  const problem = templates ? emailTemplatesProblem(templates) : null;
  if (problem) throw new AuthError('validation_error', problem);
}
