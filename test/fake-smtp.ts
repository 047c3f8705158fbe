import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A message the fake SMTP server received, decoded enough to read. */
export interface CapturedMail {
  /** Envelope sender (MAIL FROM). */
  envelopeFrom: string;
  /** Envelope recipients (RCPT TO), lower case. */
  to: string[];
  /** The From header as written. */
  from: string;
  subject: string;
  /** The plain-text body, transfer encoding undone. */
  text: string;
  /** The whole message as received. */
  raw: string;
}

export interface FakeSmtp {
  /** `smtp://127.0.0.1:<port>`: the SMTP_URL to give the app. */
  url: string;
  /** Every mail received so far, oldest first. */
  mails: CapturedMail[];
  /**
   * The oldest mail to this address not yet returned by an earlier call, waiting for it if needed
   * (rejects after timeoutMs, default 5 s).
   */
  waitForMail(to: string, timeoutMs?: number): Promise<CapturedMail>;
  close(): Promise<void>;
}

/** A local SMTP server on 127.0.0.1 (no TLS, no authentication needed) that keeps what it receives. */
export async function startFakeSmtp(): Promise<FakeSmtp> {
  const mails: CapturedMail[] = [];
  const claimed = new Set<CapturedMail>();
  const waiters = new Set<() => void>();

  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const { mailFrom, rcptTo } = session.envelope;
        mails.push({
          envelopeFrom: mailFrom ? mailFrom.address : '',
          to: rcptTo.map((rcpt) => rcpt.address.toLowerCase()),
          ...parseMessage(raw),
          raw,
        });
        for (const wake of [...waiters]) wake();
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  const takeMail = (to: string) => {
    const mail = mails.find((m) => !claimed.has(m) && m.to.includes(to.toLowerCase()));
    if (mail) claimed.add(mail);
    return mail;
  };

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitForMail(to, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const found = takeMail(to);
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (${mails.length} received)`));
        }, timeoutMs);
        const check = () => {
          const mail = takeMail(to);
          if (!mail) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(mail);
        };
        waiters.add(check);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The reset link in a mail (`<APP_URL>/reset-password/<token>`). */
export function linkIn(mail: Pick<CapturedMail, 'text'>): string {
  const link = /https?:\/\/\S+?\/reset-password\/[A-Za-z0-9_-]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`no reset link in the mail:\n${mail.text}`);
  return link;
}

/** Headers and the plain-text body of an RFC 5322 message (single part, or the first text/plain part). */
function parseMessage(raw: string): Pick<CapturedMail, 'from' | 'subject' | 'text'> {
  const { headers, body } = splitPart(raw);
  const part = firstTextPart(headers, body);
  return {
    from: decodeWords(headers.get('from') ?? ''),
    subject: decodeWords(headers.get('subject') ?? ''),
    text: part ? decodeBody(part.body, part.headers.get('content-transfer-encoding')) : '',
  };
}

function splitPart(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.search(/\r?\n\r?\n/);
  const head = end < 0 ? raw : raw.slice(0, end);
  const body = end < 0 ? '' : raw.slice(end).replace(/^\r?\n\r?\n/, '');
  const headers = new Map<string, string>();
  // Folded header lines continue with whitespace.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function firstTextPart(
  headers: Map<string, string>,
  body: string,
): { headers: Map<string, string>; body: string } | null {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary) return /^text\/plain/i.test(type) ? { headers, body } : null;
  for (const chunk of body.split(`--${boundary}`).slice(1)) {
    if (chunk.startsWith('--')) break;
    const part = splitPart(chunk.replace(/^\r?\n/, ''));
    const found = firstTextPart(part.headers, part.body);
    if (found) return found;
  }
  return null;
}

function decodeBody(body: string, encoding = '7bit'): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable':
      return decodeQuotedPrintable(body);
    default:
      return body;
  }
}

function decodeQuotedPrintable(text: string): string {
  const bytes = Buffer.from(text.replace(/=\r?\n/g, ''), 'latin1');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i] as number;
    const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
    if (byte === 0x3d && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(Number.parseInt(hex, 16));
      i += 2;
    } else {
      out.push(byte);
    }
  }
  return Buffer.from(out).toString('utf8');
}

/** RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?UTF-8?Q?...?=`) in a header. */
function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BQ]\?[^?]*\?=)\s+(?==\?)/gi, '$1')
    .replace(/=\?([^?]+)\?([BQ])\?([^?]*)\?=/gi, (_match, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(data, 'base64').toString('utf8')
        : decodeQuotedPrintable(data.replace(/_/g, ' ')),
    );
}
