// The machine's limit for one payload: a bare node:http server in a process of its own (like the app),
// answering every request with the status, content-type and body bytes it is given over IPC. It reads
// each request body to its end first, as the app must.
import { createServer } from 'node:http';

process.once('message', ({ status, contentType, body }) => {
  const bytes = Buffer.from(body, 'base64');
  // Like Fastify: a 204 has neither a body nor content headers.
  const headers =
    status === 204
      ? {}
      : { 'content-type': contentType ?? 'application/json', 'content-length': bytes.length };
  const server = createServer((request, response) => {
    request.on('data', () => {});
    request.on('end', () => {
      response.writeHead(status, headers);
      response.end(status === 204 ? undefined : bytes);
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
});
process.on('disconnect', () => process.exit(0));
