// The machine's limit for one payload: a bare node:http server in a process of its own (like the app),
// answering every request with the status, content-type and body bytes it is given over IPC. It reads
// each request body to its end first, as the app must. It keeps the first requests it gets (method,
// path, content type, body), sent back when asked: the bench checks that wrk's Lua made the same
// requests as the scenario's JavaScript.
import { createServer } from 'node:http';

/** Requests kept for the check. */
const RECORDED = 64;

process.once('message', ({ status, contentType, body }) => {
  const bytes = Buffer.from(body, 'base64');
  const recorded = [];
  // Like Fastify: a 204 has neither a body nor content headers.
  const headers =
    status === 204
      ? {}
      : { 'content-type': contentType ?? 'application/json', 'content-length': bytes.length };
  const server = createServer((request, response) => {
    const keep = recorded.length < RECORDED;
    const chunks = keep ? [] : null;
    request.on('data', (chunk) => chunks?.push(chunk));
    request.on('end', () => {
      if (keep && recorded.length < RECORDED)
        recorded.push({
          method: request.method,
          path: request.url,
          contentType: request.headers['content-type'] ?? null,
          body: Buffer.concat(chunks).toString(),
        });
      response.writeHead(status, headers);
      response.end(status === 204 ? undefined : bytes);
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (message) => {
    if (message === 'recorded') process.send({ recorded });
  });
});
process.on('disconnect', () => process.exit(0));
