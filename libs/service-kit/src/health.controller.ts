import { Controller, Get, Header, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
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
    const readiness = await this.runtime.readiness();
    res.status(readiness.ok ? 200 : 503).json({ ...readiness, service: this.runtime.config.serviceName });
  }

  @Get('metrics')
  @Header('Content-Type', 'text/plain; version=0.0.4')
  async metrics() {
    await this.runtime.outboxBacklog().catch(() => undefined);
    return this.runtime.metrics.registry.metrics();
  }
}
