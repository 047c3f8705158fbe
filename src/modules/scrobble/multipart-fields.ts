import type { IncomingMessage } from 'node:http';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../shared/errors.js';

export interface MultipartLimits {
  /** The whole body, in bytes. */
  bodyBytes: number;
  /** Text fields. */
  fields: number;
  /** Parts read as files (and dropped). */
  files: number;
}

/**
 * Parts that are files, read and dropped: a part with a file name (Plex's `thumb` JPEG), or one that
 * declares a content type other than text or JSON. Plex's `payload` part declares application/json.
 */
const isFile = (_name: string | undefined, contentType: string | undefined, fileName: string | undefined) =>
  fileName !== undefined ||
  (contentType !== undefined && !/^(text\/|application\/(json|x-www-form-urlencoded)\b)/i.test(contentType));

const tooLarge = (message: string) => new AppError(413, 'PayloadTooLarge', message);

/**
 * A Fastify content-type parser for `multipart/form-data` that reads a body into its text fields
 * (a field sent twice keeps its first value), with busboy. A body that is no well-formed multipart
 * is a 400 `InvalidWebhookPayload`; one past `limits`, a 413.
 *
 * Why not @fastify/multipart: it adds three async hooks (onRequest, preValidation, onResponse) to
 * every request of the scope it is registered in, whatever its content type, and the webhook scope
 * takes reports in four body formats. A parser runs for multipart bodies only (docs/performance.md).
 */
export function multipartFieldsParser(limits: MultipartLimits) {
  return (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (error: Error | null, body?: Record<string, string>) => void,
  ): void => {
    let settled = false;
    const settle = (error: Error | null, body?: Record<string, string>) => {
      if (settled) return;
      settled = true;
      if (error) payload.unpipe();
      done(error, body);
    };

    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: request.headers as { 'content-type': string },
        isPartAFile: isFile,
        // The whole body is held to `bodyBytes` (below), and with it every part.
        limits: {
          fieldSize: limits.bodyBytes,
          fields: limits.fields,
          files: limits.files,
        },
      });
    } catch (error) {
      // No boundary, or not multipart at all.
      settle(badRequest('InvalidWebhookPayload', `malformed multipart body: ${messageOf(error)}`));
      return;
    }

    // A null prototype: a field named like a property of every object (`constructor`) is a field like any other.
    const fields: Record<string, string> = Object.create(null);
    let received = 0;
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyBytes)
        settle(tooLarge(`the multipart body is larger than ${limits.bodyBytes} bytes`));
    });
    payload.on('error', (error) => settle(badRequest('InvalidWebhookPayload', messageOf(error))));

    parser.on('field', (name, value) => {
      if (!(name in fields)) fields[name] = value;
    });
    parser.on('file', (_name, file) => file.resume());
    parser.on('fieldsLimit', () => settle(tooLarge(`more than ${limits.fields} form fields`)));
    parser.on('filesLimit', () => settle(tooLarge(`more than ${limits.files} form files`)));
    parser.on('error', (error: unknown) =>
      settle(badRequest('InvalidWebhookPayload', `malformed multipart body: ${messageOf(error)}`)),
    );
    parser.on('finish', () => settle(null, fields));
    payload.pipe(parser);
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
