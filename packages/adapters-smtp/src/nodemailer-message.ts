import type { SendMailOptions } from 'nodemailer';
import type { OutgoingMail } from '@svc/core';

/** One outbox mail as nodemailer's message, whichever transport sends it (SMTP, or a file). */
export function nodemailerMessage(from: string, message: OutgoingMail): SendMailOptions {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: message.messageId,
    headers: message.headers,
  };
}
