import { BadRequestException, Injectable, PayloadTooLargeException, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';

/** A form's fields are short: an address, a URL, a few choices. Past this the request is refused (413). */
export const FORM_BODY_MAX_BYTES = 64 * 1024;
const MAX_FIELDS = 1000;

/**
 * Reads an urlencoded form body, after the guards (ChangeGuard has checked the session and the CSRF
 * token from the request's head): the console starts without a body parser, so nothing reads a
 * body before that. A body announced larger than FORM_BODY_MAX_BYTES is refused unread.
 * Multipart bodies are multer's, on the route that takes a file.
 */
@Injectable()
export class FormBodyInterceptor implements NestInterceptor {
  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() === 'http') {
      const req = context.switchToHttp().getRequest<Request>();
      const type = String(req.headers['content-type'] ?? '').toLowerCase();
      if (req.method !== 'GET' && req.method !== 'HEAD' && req.body === undefined && type.startsWith('application/x-www-form-urlencoded'))
        req.body = await readFormBody(req);
    }
    return next.handle();
  }
}

async function readFormBody(req: Request): Promise<Record<string, string | string[]>> {
  if (Number(req.headers['content-length'] ?? 0) > FORM_BODY_MAX_BYTES) throw new PayloadTooLargeException('This form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > FORM_BODY_MAX_BYTES) throw new PayloadTooLargeException('This form is too large.');
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof PayloadTooLargeException) throw error;
    // The sender broke off its body: its request, not the console's fault.
    throw new BadRequestException('This form arrived incomplete.');
  }
  const params = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  // No prototype: a field named __proto__ is a field.
  const fields: Record<string, string | string[]> = Object.create(null);
  let count = 0;
  for (const [name, value] of params) {
    if (++count > MAX_FIELDS) throw new BadRequestException('This form has too many fields.');
    const earlier = fields[name];
    fields[name] = earlier === undefined ? value : [...[earlier].flat(), value];
  }
  return fields;
}
