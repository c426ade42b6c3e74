import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Response } from 'express';
import { log } from '#platform/service-kit';
import { ConsoleWeb } from './console-web';
import { html } from './html';
import { page } from './layout';

/**
 * What is not a refusal (DomainErrorPageFilter) nor Nest's own answer (404 of an unknown route, a
 * body it cannot parse) is the console's fault: logged with its stack, and a page, not Nest's JSON.
 */
@Catch()
export class UnexpectedErrorPageFilter implements ExceptionFilter {
  constructor(private readonly web: ConsoleWeb) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (error instanceof HttpException) {
      const status = error.getStatus();
      return this.web.send(res, status, page(status === 404 ? 'Not found' : 'Not possible', html`<p>${error.message}</p>`));
    }
    log('error', 'console page failed', { error: String((error as Error)?.stack ?? error) });
    this.web.send(res, 500, page('Something went wrong', html`<p class="notice" role="alert">This page failed on our side. Try again in a moment.</p>`));
  }
}
