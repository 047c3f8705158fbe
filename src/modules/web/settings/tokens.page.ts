import { TOKEN_EXPIRY_CHOICES, type TokenView } from '../../auth/api-tokens.service.js';
import type { User } from '../../users/users.service.js';
import { formatDateTime } from '../shell/format.js';

// Settings → API tokens. Pure: the user's tokens in, the template's data out.

/** What the form's expiry starts at. */
export const DEFAULT_TOKEN_EXPIRY = '90';
const EXPIRY_LABELS: Record<string, string> = {
  '30': 'In 30 days',
  '90': 'In 90 days',
  '365': 'In 365 days',
  never: 'Never',
};
const EXPIRY_OPTIONS = TOKEN_EXPIRY_CHOICES.map((value) => ({ value, label: EXPIRY_LABELS[value] ?? value }));

/** A time as the page shows it: readable in the user's zone, ISO for `<time datetime>`. */
interface ShownTime {
  iso: string;
  text: string;
}

const shownTime = (iso: string | null, timeZone: string): ShownTime | null =>
  iso === null ? null : { iso, text: formatDateTime(iso, timeZone) };

const tokenRow = (token: TokenView, timeZone: string) => ({
  id: token.id,
  name: token.name,
  displayPrefix: token.displayPrefix,
  state: token.state,
  created: shownTime(token.createdAt, timeZone),
  lastUsed: shownTime(token.lastUsedAt, timeZone),
  expires: shownTime(token.expiresAt, timeZone),
});

/** What the page shows besides the list: a refused form (`error`, `values`), or the token just made. */
export interface TokensPageData {
  error?: string;
  values?: { name: string; expiry: string };
  /** Its value is shown this once, in the answer to the form that made it. */
  created?: { value: string; token: TokenView };
}

/** `/settings/tokens` of `user`: their tokens with times in their time zone, and the form. */
export function tokensPage(user: User, list: TokenView[], data: TokensPageData) {
  return {
    title: 'API tokens',
    timeZone: user.timezone,
    tokens: list.map((token) => tokenRow(token, user.timezone)),
    expiryOptions: EXPIRY_OPTIONS,
    values: data.values ?? { name: '', expiry: DEFAULT_TOKEN_EXPIRY },
    error: data.error ?? null,
    created: data.created
      ? {
          value: data.created.value,
          name: data.created.token.name,
          expires: shownTime(data.created.token.expiresAt, user.timezone),
        }
      : null,
  };
}
