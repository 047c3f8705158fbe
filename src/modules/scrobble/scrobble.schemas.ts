import { Type } from 'typebox';
import { ErrorBody, Nullable, PageQuery } from '../../shared/schemas.js';
import { listed, MEDIA_SERVER_KEYS } from './media-servers.js';

const Outcome = Type.Union([
  Type.Literal('counted'),
  Type.Literal('ignored'),
  Type.Literal('duplicate'),
  Type.Literal('unmatched'),
  Type.Literal('rejected'),
]);
const Server = Type.Union(MEDIA_SERVER_KEYS.map((server) => Type.Literal(server)));

export const WebhookParams = Type.Object({
  uuid: Type.String({ description: 'the secret UUID of the webhook URL (UUID in the spec)' }),
});

export const ScrobbleResponse = Type.Object(
  {
    outcome: Outcome,
    reason: Nullable(Type.String()),
    serviceId: Nullable(Type.Integer()),
    watchDate: Nullable(Type.String({ format: 'date' })),
  },
  { description: 'what cinelog made of the report' },
);

export const webhookResponses = {
  200: ScrobbleResponse,
  400: { ...ErrorBody, description: 'the body is not a report (not JSON, empty, no payload field)' },
  404: { ...ErrorBody, description: 'no webhook at this URL' },
  413: { ...ErrorBody, description: 'request body too large' },
  429: { ...ErrorBody, description: 'too many reports to this URL; retry later' },
} as const;

export const InboxQuery = Type.Object({
  ...PageQuery,
  server: Type.Optional({ ...Server, description: 'only this media server' }),
  outcome: Type.Optional({ ...Outcome, description: 'only this outcome' }),
});

export const InboxPage = Type.Object({
  events: Type.Array(
    Type.Object({
      receivedAt: Type.String({ description: 'ISO-8601 UTC time of receipt' }),
      server: Type.String({ description: listed(MEDIA_SERVER_KEYS) }),
      event: Nullable(Type.String({ description: "the media server's event name" })),
      account: Nullable(Type.String({ description: 'the media-server user the report was for' })),
      outcome: Outcome,
      reason: Nullable(Type.String()),
      movie: Nullable(Type.Object({ serviceId: Nullable(Type.Integer()), title: Nullable(Type.String()) })),
      watchDate: Nullable(Type.String({ format: 'date' })),
      payload: Nullable(Type.String({ description: 'the report as received, cut at 16 KiB' })),
    }),
  ),
  currentPage: Type.Integer(),
  maxPage: Type.Integer(),
});
