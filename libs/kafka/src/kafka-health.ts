import type { Admin, Kafka } from 'kafkajs';
import { createKafka } from './kafka-client';
import type { KafkaSecurity } from './kafka-security';

/**
 * A live check of the broker connection for /readyz: a metadata round trip with a short deadline,
 * its answer kept for `cacheMs` so probes of several load balancers cost the broker one request a
 * second. Producer connect/disconnect events alone stayed "connected" through a broker outage.
 */
export class KafkaHealth {
  private readonly kafka: Kafka;
  private admin: Admin | null = null;
  private last: { at: number; ok: boolean } | null = null;
  private inFlight: Promise<boolean> | null = null;

  constructor(
    clientId: string,
    brokers: string[],
    private readonly options: { timeoutMs?: number; cacheMs?: number; security?: KafkaSecurity } = {},
  ) {
    // A client of its own without retries: a failed probe ends at once (the next probe is the retry),
    // instead of reconnecting in the background for seconds after its answer was given.
    this.kafka = createKafka(clientId, brokers, { retry: { retries: 0 }, connectionTimeout: this.options.timeoutMs ?? 1000 }, this.options.security);
  }

  async reachable(): Promise<boolean> {
    const cacheMs = this.options.cacheMs ?? 1000;
    if (this.last && Date.now() - this.last.at < cacheMs) return this.last.ok;
    this.inFlight ??= this.probe().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  async close(): Promise<void> {
    await this.admin?.disconnect().catch(() => undefined);
    this.admin = null;
  }

  private async probe(): Promise<boolean> {
    const timeoutMs = this.options.timeoutMs ?? 1000;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const ask = (async () => {
      this.admin ??= this.kafka.admin({ retry: { retries: 0 } });
      await this.admin.connect();
      await this.admin.describeCluster();
      return true;
    })().catch(async () => {
      // A fresh connection next time, not one kafkajs may still hold as broken.
      await this.close();
      return false;
    });
    const ok = await Promise.race([ask, deadline]);
    clearTimeout(timer);
    this.last = { at: Date.now(), ok };
    return ok;
  }
}
