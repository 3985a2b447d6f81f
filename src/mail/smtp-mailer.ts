/** The SMTP mailer (nodemailer) of SMTP_URL, e.g. `smtp://user:pass@mail.example.com:587`. */
import nodemailer from 'nodemailer';
import type { Mailer } from '../core/ports/mail.js';

/**
 * A mailer sending through the SMTP server of `url`, from `from`: one connection per message, each step
 * (connecting, the greeting, an idle socket) bounded by `timeoutMs`. A refusal rejects with nodemailer's
 * error, whose `responseCode` is the SMTP reply code.
 */
export function smtpMailer(url: string, from: string, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Mailer {
  const transport = nodemailer.createTransport({
    url,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        ...(mail.messageId ? { messageId: mail.messageId } : {}),
      });
    },
  };
}
