import type { NextFunction, Request, Response } from 'express';
import type { ServiceMetrics } from './metrics';

/** Records every HTTP request in the latency histogram, by matched route (not raw path, to keep labels bounded). */
export function httpMetricsMiddleware(metrics: ServiceMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = (res.locals.routeLabel as string | undefined) ?? (req.route?.path as string | undefined) ?? 'unmatched';
      end({ method: req.method, route, status: String(res.statusCode) });
    });
    next();
  };
}
