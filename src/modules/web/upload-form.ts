import type { IncomingMessage } from 'node:http';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { AppError, badRequest } from '../../shared/errors.js';

/** A form with one file, as its multipart body is read: its text fields, and the file under `file`. */
export interface UploadFormBody {
  [field: string]: unknown;
  file?: UploadedFile;
}

export interface UploadedFile {
  /** The name the browser gave, as sent (not a path to trust). */
  name: string;
  bytes: Buffer;
}

const tooLarge = (bytes: number) =>
  new AppError(413, 'PayloadTooLarge', `the file is larger than ${Math.round(bytes / 1024 / 1024)} MB`);

/**
 * A Fastify content-type parser for a page's `multipart/form-data` upload form, with busboy: the text
 * fields (the first value of each; `_csrf` among them, so the web app's CSRF check reads it like any
 * form's) and the part named `file`, held in memory up to `fileBytes` (past that: a 413). Other file
 * parts are refused. Its routes check the sign-in before the body is read (onRequest).
 */
export function uploadFormParser(limits: { fileBytes: number; fields: number }) {
  return (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (error: Error | null, body?: UploadFormBody) => void,
  ): void => {
    let settled = false;
    const settle = (error: Error | null, body?: UploadFormBody) => {
      if (settled) return;
      settled = true;
      if (error) {
        payload.unpipe();
        payload.resume();
      }
      done(error, body);
    };

    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: request.headers as { 'content-type': string },
        limits: { fields: limits.fields, fieldSize: 4096, files: 1, fileSize: limits.fileBytes },
      });
    } catch (error) {
      settle(badRequest('InvalidRequestBody', `malformed form: ${messageOf(error)}`));
      return;
    }

    // A null prototype: a field named like a property of every object is a field like any other.
    const body: UploadFormBody = Object.create(null);
    parser.on('field', (name, value) => {
      if (name !== 'file' && !(name in body)) body[name] = value;
    });
    parser.on('file', (name, stream, fileName) => {
      if (name !== 'file') {
        stream.resume();
        settle(badRequest('InvalidRequestBody', `unexpected file field "${name}"`));
        return;
      }
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => settle(tooLarge(limits.fileBytes)));
      stream.on('end', () => {
        if (!stream.truncated) body.file = { name: fileName ?? '', bytes: Buffer.concat(chunks) };
      });
    });
    parser.on('fieldsLimit', () => settle(badRequest('InvalidRequestBody', 'too many form fields')));
    parser.on('filesLimit', () => settle(badRequest('InvalidRequestBody', 'send one file')));
    parser.on('error', (error: unknown) =>
      settle(badRequest('InvalidRequestBody', `malformed form: ${messageOf(error)}`)),
    );
    payload.on('error', (error) => settle(badRequest('InvalidRequestBody', messageOf(error))));
    parser.on('finish', () => settle(null, body));
    payload.pipe(parser);
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
