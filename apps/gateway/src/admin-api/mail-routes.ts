import { DomainError } from '#platform/errors';
import type { AdminRoute } from './admin-route';

/** One email the local sink caught, as `GET /admin/v1/mail` lists it (architecture section 11). */
export interface CaughtMail {
  id: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  sentAt: string;
}

/**
 * `GET /admin/v1/mail?to=<address>`: what the local SMTP sink of dev and test caught for an address,
 * newest first. The route exists only when the gateway is told where the sink lists its mail
 * (MAIL_SINK_URL, refused in production); otherwise it answers route_not_found.
 */
export function mailRoutes(sinkUrl: string | null): AdminRoute[] {
  if (!sinkUrl) return [];
  return [
    {
      method: 'GET',
      path: '/mail',
      handle: async (ctx) => {
        const to = ctx.query.get('to')?.trim().toLowerCase();
        if (!to) throw DomainError.invalid([{ field: 'to', issue: 'is required' }]);
        if (!/^[^@\s]+@[^@\s]+$/.test(to)) throw DomainError.invalid([{ field: 'to', issue: 'must be an email address' }]);
        const res = await fetch(`${sinkUrl}/messages?to=${encodeURIComponent(to)}`, { signal: AbortSignal.timeout(5000) });
        if (!res.ok) throw new DomainError('internal_error', `The mail sink answered ${res.status}.`);
        const { data } = (await res.json()) as { data: Array<CaughtMail & Record<string, unknown>> };
        return {
          status: 200,
          body: { data: data.map(({ id, to: recipients, subject, text, html, sentAt }) => ({ id, to: recipients, subject, text, html, sentAt })) },
        };
      },
    },
  ];
}
