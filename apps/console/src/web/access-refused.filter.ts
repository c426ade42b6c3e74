import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { AccessRefused } from './access-refused';
import { ConsoleWeb } from './console-web';

/** The guards' refusals: to the sign-in page, "form expired" or not found; the connection ends with the answer (its body is never read). */
@Catch(AccessRefused)
export class AccessRefusedFilter implements ExceptionFilter<AccessRefused> {
  constructor(private readonly web: ConsoleWeb) {}

  catch(refusal: AccessRefused, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (refusal.reason === 'signed-out') return this.web.redirect(res, '/');
    if (refusal.reason === 'not-member') return this.web.notFound(res, refusal.viewer);
    this.web.refuseCsrf(res, refusal.viewer);
  }
}
