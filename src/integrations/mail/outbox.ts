import type { Mail, Mailer } from './mailer.js';

/**
 * Mail that is sent after the answer: a request never waits for the mail server, and a failure is
 * logged, never shown. Closing the app waits for what is on its way (`idle`).
 */
export interface Outbox {
  /** Whether SMTP_URL is set: without it nothing is ever sent. */
  readonly enabled: boolean;
  /** Runs `work` (a lookup, then `deliver`) after the answer; an error is logged. */
  later(work: () => Promise<void>): void;
  /**
   * Sends a mail. A failure is logged as `failure` with `about` and the SMTP error's codes only (a
   * mail may hold a secret link), and not thrown.
   */
  deliver(mail: Mail, about: Record<string, unknown>, failure: string): Promise<void>;
  /** Resolves once all work started so far has finished. */
  idle(): Promise<void>;
}

export function createOutbox(
  mailer: Mailer | null,
  log: { error(object: object, message: string): void },
): Outbox {
  const pending = new Set<Promise<void>>();
  return {
    enabled: mailer !== null,

    later(work) {
      if (!mailer) return;
      const running = work()
        .catch((error: unknown) => log.error({ err: error }, 'sending a mail failed'))
        .finally(() => pending.delete(running));
      pending.add(running);
    },

    async deliver(mail, about, failure) {
      if (!mailer) return;
      try {
        await mailer.send(mail);
      } catch (error) {
        const { code, responseCode, command } = error as {
          code?: string;
          responseCode?: number;
          command?: string;
        };
        log.error({ ...about, code, responseCode, command }, failure);
      }
    },

    async idle() {
      await Promise.all([...pending]);
    },
  };
}
