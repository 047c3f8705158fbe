import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';

/** An e-mail to one recipient, as plain text. */
export interface Mail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail through SMTP_URL (see createMailer); tests point SMTP_URL at a local SMTP server. */
export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * A mailer over SMTP_URL (`smtp://user:pass@host:587`, `smtps://...`; nodemailer's URL options such as
 * `?tls.rejectUnauthorized=false` work too), sending from MAIL_FROM.
 */
export function createMailer(smtpUrl: string, mailFrom: string): Mailer {
  // Shorter waits than nodemailer's (up to 10 minutes): a dead mail server must not hold a send for long.
  // Loaded only when SMTP_URL is set: a server without mail never holds nodemailer in memory.
  const { createTransport } = createRequire(import.meta.url)('nodemailer') as typeof Nodemailer;
  const transport = createTransport({
    url: smtpUrl,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 30_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({ from: mailFrom, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
