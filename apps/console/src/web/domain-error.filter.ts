import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DomainError } from '#platform/errors';
import { ConsoleWeb } from './console-web';

/**
 * Every refusal of a console action (a service's rule, a decider's) is the client's, never a 5xx:
 * the page shows the API error code's status and words, with the way back to the app. Pages need
 * no handling of their own for it.
 */
@Catch(DomainError)
export class DomainErrorPageFilter implements ExceptionFilter<DomainError> {
  constructor(private readonly web: ConsoleWeb) {}

  catch(error: DomainError, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const appId = http.getRequest<Request>().params?.appId;
    const back = appId ? { href: `/apps/${appId}`, label: 'Back to the app' } : { href: '/apps', label: 'Your apps' };
    // The fields a validation refusal names, in the API's words (`expiresAt must be in the future`).
    const details = (error.details ?? []).map((d) => `${d.field} ${d.issue}`).join('; ');
    this.web.problem(http.getResponse<Response>(), error.status, 'Not possible', details ? `${error.message} ${details}.` : error.message, null, back);
  }
}
