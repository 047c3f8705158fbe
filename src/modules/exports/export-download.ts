import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { User } from '../users/users.service.js';
import { type ExportsService, zipped } from './export.service.js';
import type { ExportFormat } from './export.types.js';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: 'application/json; charset=utf-8',
  movary: 'application/zip',
  letterboxd: 'application/zip',
};

/** The user's export as a download, streamed: the API's and the web app's. */
export async function sendExport(
  reply: FastifyReply,
  exports: ExportsService,
  owner: User,
  format: ExportFormat,
) {
  const files = await exports.files(format, owner);
  const zip = format !== 'json';
  const name = zip ? `${format}-${owner.name}.zip` : files[0]!.name;
  const chunks = zip ? zipped(files) : files[0]!.chunks;
  return reply
    .type(CONTENT_TYPES[format])
    .header('content-disposition', `attachment; filename="${name}"`)
    .header('cache-control', 'no-store')
    .send(Readable.from(chunks) as never);
}
