/** The SMTP mailer (nodemailer) of SMTP_URL, e.g. `smtp://user:pass@mail.example.com:587`. */
import nodemailer from 'nodemailer';
import type { Mailer } from '../core/ports/mail.js';

/** A mailer sending through the SMTP server of `url`, from `from`. */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport(url);
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
  };
}
