import { Catch, NotFoundException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { newRequestId } from '#platform/contracts';
import { commonHeaders, sendError } from './respond';
import { DomainError } from '#platform/errors';

/** Unknown paths on the admin port answer in the error envelope too, never Nest's default body. */
@Catch(NotFoundException)
export class RouteNotFoundFilter implements ExceptionFilter {
  constructor(private readonly docsUrl: string) {}

  catch(_exception: NotFoundException, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const requestId = newRequestId();
    commonHeaders(res, requestId);
    sendError(res, new DomainError('route_not_found'), requestId, this.docsUrl);
  }
}
