import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { METRICS_CONTENT_TYPE, metricsText, readinessAnswer } from './health-checks';
import { ServiceRuntime } from './service-runtime';

/** Liveness, readiness (Postgres and Kafka reachable) and Prometheus metrics. */
@Controller()
export class HealthController {
  constructor(@Inject(ServiceRuntime) private readonly runtime: ServiceRuntime) {}

  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { ok: true, service: this.runtime.config.serviceName };
  }

  @Get('readyz')
  async readyz(@Res() res: Response) {
    const answer = await readinessAnswer(this.runtime);
    res.status(answer.status).json(answer.body);
  }

  @Get('metrics')
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  async metrics() {
    return metricsText(this.runtime);
  }
}
