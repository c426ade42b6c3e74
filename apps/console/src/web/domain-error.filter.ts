import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { DomainError } from '#platform/errors';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { page } from './layout';

/**
 * A refusal a page did not handle itself (a service refusing a cursor it cannot read, say) is the
 * client's, never a 5xx: it gets the status and the words of the API's error code.
 */
@Catch(DomainError)
export class DomainErrorPageFilter implements ExceptionFilter<DomainError> {
  constructor(private readonly web: ConsoleWeb) {}

  catch(error: DomainError, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    this.web.send(
      res,
      error.status,
      page(
        'Not possible',
        html`<p class="notice" role="alert">${error.message}</p>
          <p><a href="/apps">Your apps</a></p>`,
      ),
    );
  }
}
