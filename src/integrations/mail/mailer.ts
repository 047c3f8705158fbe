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
