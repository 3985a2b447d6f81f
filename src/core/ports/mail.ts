/** Outgoing e-mail (SMTP_URL, docs/configuration.md): notices about deprecated items to key owners. */

/** One message to one recipient. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail; the server's is absent without SMTP_URL (nothing is mailed then). */
export interface Mailer {
  send(mail: Mail): Promise<void>;
}
