import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * A browser-like client for HTTP-level tests of the web app, over `app.inject`: it keeps cookies,
 * and sends forms with the CSRF token of the page it last read, as a browser posting that page's form.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  /** The body of the last page read: forms take their CSRF token from it. */
  page = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly remoteAddress = '127.0.0.1',
    /** Sent with every request, as a reverse proxy in front would add them (forward auth). */
    readonly headers: Record<string, string> = {},
  ) {}

  async get(path: string): Promise<LightMyRequestResponse> {
    const response = await this.app.inject({
      method: 'GET',
      url: path,
      headers: { accept: 'text/html', ...this.headers },
      cookies: Object.fromEntries(this.cookies),
      remoteAddress: this.remoteAddress,
    });
    this.keep(response);
    return response;
  }

  /**
   * Sends a form as a browser does (urlencoded), with the `_csrf` of the last page unless `fields`
   * has its own (`_csrf: ''` sends none).
   */
  async post(path: string, fields: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const form = { _csrf: this.csrfToken(), ...fields };
    if (form._csrf === '') delete (form as Partial<typeof form>)._csrf;
    const response = await this.app.inject({
      method: 'POST',
      url: path,
      headers: {
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
        ...this.headers,
      },
      payload: new URLSearchParams(form).toString(),
      cookies: Object.fromEntries(this.cookies),
      remoteAddress: this.remoteAddress,
    });
    this.keep(response);
    return response;
  }

  /** Reads a page, then sends one of its forms. */
  async submit(pagePath: string, action: string, fields: Record<string, string> = {}) {
    await this.get(pagePath);
    return this.post(action, fields);
  }

  /** Follows a 303/302 to the page it points at. */
  async follow(response: LightMyRequestResponse): Promise<LightMyRequestResponse> {
    const location = response.headers.location;
    if (typeof location !== 'string') throw new Error(`not a redirect: ${response.statusCode}`);
    return this.get(location);
  }

  csrfToken(): string {
    return /name="_csrf" value="([^"]+)"/.exec(this.page)?.[1] ?? '';
  }

  private keep(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as {
      name: string;
      value: string;
      expires?: Date;
      maxAge?: number;
    }[]) {
      const expired =
        cookie.value === '' ||
        cookie.maxAge === 0 ||
        (cookie.expires !== undefined && cookie.expires.getTime() <= 0);
      if (expired) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if (String(response.headers['content-type'] ?? '').startsWith('text/html')) this.page = response.body;
  }
}

/** The text of an HTML page without tags, whitespace collapsed: for asserting what a reader sees. */
export const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();

/** The password test/harness.ts createUser gives every user. */
export const TEST_PASSWORD = 'correct horse battery';

/** A client signed in through the sign-in form (from its own address, as a separate device). */
export async function signedInClient(
  app: FastifyInstance,
  login: string,
  options: { password?: string; address?: string } = {},
): Promise<WebClient> {
  const client = new WebClient(app, options.address);
  const response = await client.submit('/login', '/login', {
    login,
    password: options.password ?? TEST_PASSWORD,
  });
  if (response.statusCode !== 303) throw new Error(`sign-in as ${login} answered ${response.statusCode}`);
  return client;
}
