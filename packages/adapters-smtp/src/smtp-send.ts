import type { SendMailOptions, SentMessageInfo, Transporter } from 'nodemailer';
import { composeSmtpMessage, compositionChecked } from './mime-compose';

/**
 * Sends `mail` over an SMTP transport, composed beforehand (mime-compose.ts) and handed to
 * nodemailer as `raw` with the envelope and Message-ID nodemailer would have derived from it, so
 * the transport only frames the finished bytes for DATA (CRLF line ends, dot-stuffing: its
 * DataStream, as for a streamed message). A message the composition does not cover, a
 * transport that rewrites the html before composing (`attachDataUrls`), and every message when
 * the installed nodemailer disagrees with the composition (`compositionChecked`) are streamed by
 * nodemailer as before. smtp-mailer.test.ts compares what a server receives both ways, byte for byte.
 */
export async function sendOverSmtp(transport: Transporter, mail: SendMailOptions): Promise<SentMessageInfo> {
  const rewritesHtml = Boolean((transport.options as { attachDataUrls?: unknown }).attachDataUrls);
  const composed = rewritesHtml || !(await compositionChecked()) ? null : composeSmtpMessage(mail);
  return transport.sendMail(composed ?? mail);
}
