import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../../../shared/errors.js';

/** A form with one file, as its multipart body is read: its text fields, and the file under `file`. */
export interface UploadFormBody<F> {
  [field: string]: unknown;
  file?: F;
}

/**
 * A Fastify content-type parser for a page's `multipart/form-data` upload form, with busboy: the text
 * fields (the first value of each; `_csrf` among them, so the web app's CSRF check reads it like any
 * form's) and the part named `file`, handed as a stream to `receive` (which stores it and enforces its
 * size) as it arrives. Other file parts are refused. A body that breaks off is a 400, never an error
 * left unhandled. Its routes check the sign-in before the body is read (onRequest), and discard a
 * received file the route did not take (onResponse).
 */
export function uploadFormParser<F>(
  limits: { fileBytes: number; fields: number },
  /** Stores the file part; `fields` are the form's fields read before it. */
  receive: (fields: UploadFormBody<F>, name: string, stream: Readable) => Promise<F>,
  /** A received file the form's body will not carry (the form was refused after it): removed. */
  abandon: (file: F) => Promise<void>,
) {
  return (
    request: FastifyRequest,
    payload: IncomingMessage,
    done: (error: Error | null, body?: UploadFormBody<F>) => void,
  ): void => {
    // A null prototype: a field named like a property of every object is a field like any other.
    const body: UploadFormBody<F> = Object.create(null);
    let receiving: Promise<void> | null = null;
    let part: Readable | null = null;
    let settled = false;
    const settle = (error: Error | null, result?: UploadFormBody<F>) => {
      if (settled) return;
      settled = true;
      if (error) {
        payload.unpipe();
        payload.resume();
        // A file part still arriving ends with the form's error: its receiver removes what it wrote.
        if (part && !part.readableEnded) part.destroy(error);
        void receiving?.then(() => (body.file === undefined ? undefined : abandon(body.file)));
      }
      done(error, result);
    };

    let parser: BusboyInstance;
    try {
      parser = new Busboy({
        headers: request.headers as { 'content-type': string },
        // One byte past the limit: `receive` sees it and refuses the file with its own message.
        limits: { fields: limits.fields, fieldSize: 4096, files: 1, fileSize: limits.fileBytes + 1 },
      });
    } catch (error) {
      settle(badRequest('InvalidRequestBody', `malformed form: ${messageOf(error)}`));
      return;
    }

    parser.on('field', (name, value) => {
      if (name !== 'file' && !(name in body)) body[name] = value;
    });
    parser.on('file', (name, stream, fileName) => {
      // Errors of the part (a body that ends mid-file) reach `receive` through its stream.
      if (name !== 'file') {
        stream.on('error', () => undefined);
        stream.resume();
        settle(badRequest('InvalidRequestBody', `unexpected file field "${name}"`));
        return;
      }
      part = stream;
      receiving = receive(body, fileName ?? '', stream).then(
        (file) => {
          body.file = file;
        },
        (error: Error) => settle(error),
      );
    });
    parser.on('fieldsLimit', () => settle(badRequest('InvalidRequestBody', 'too many form fields')));
    parser.on('filesLimit', () => settle(badRequest('InvalidRequestBody', 'send one file')));
    parser.on('error', (error: unknown) =>
      settle(badRequest('InvalidRequestBody', `malformed form: ${messageOf(error)}`)),
    );
    payload.on('error', (error) => settle(badRequest('InvalidRequestBody', messageOf(error))));
    parser.on('finish', () => {
      if (receiving) void receiving.then(() => settle(null, body));
      else settle(null, body);
    });
    payload.pipe(parser);
  };
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
