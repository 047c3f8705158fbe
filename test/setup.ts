import { afterEach } from 'vitest';

// No test reaches the network: outbound fetches to anything but this machine fail the test.
const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const blocked: string[] = [];
const realFetch = globalThis.fetch;

globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (!LOCAL_HOSTS.has(url.hostname)) {
    blocked.push(url.href);
    throw new Error(`test tried to reach the network: ${url.href}`);
  }
  return realFetch(input, init);
}) as typeof fetch;

afterEach(() => {
  if (blocked.length > 0) {
    const urls = blocked.splice(0);
    throw new Error(`unhandled outbound request(s): ${urls.join(', ')}`);
  }
});
