import { WebhookHttpClient } from '../outbound/webhook-http-client';
import { webhookNetworkConfig } from '../url-safety/dev-hosts';
import { dnsHostResolver } from '../url-safety/host-resolver';
import { UrlSafety, type UrlCheck } from '../url-safety/url-safety';

const DEFAULT_ENDPOINT_MAX_IN_FLIGHT = 32;

/**
 * The dispatcher's only way out to the internet: every URL is checked (SSRF rules, DNS resolved,
 * every address judged) and the request goes to the checked address. Deliveries to one host that
 * start together share one lookup; nothing is cached beyond that, so a DNS answer that changes
 * after registration is seen at the very next delivery.
 */
export class WebhookNetwork {
  private readonly inFlight = new Map<string, Promise<UrlCheck>>();

  constructor(
    readonly urlSafety: UrlSafety,
    readonly http: WebhookHttpClient,
    /** Attempts at once to one endpoint that answers, and its connections (WEBHOOK_ENDPOINT_MAX_IN_FLIGHT, per replica). */
    readonly endpointMaxInFlight = DEFAULT_ENDPOINT_MAX_IN_FLIGHT,
  ) {}

  static fromEnv(env: NodeJS.ProcessEnv, production: boolean): WebhookNetwork {
    const config = webhookNetworkConfig(env, production);
    const resolver = dnsHostResolver({ servers: config.dnsServers, timeoutMs: 1500 });
    const perEndpoint = Number(env.WEBHOOK_ENDPOINT_MAX_IN_FLIGHT ?? DEFAULT_ENDPOINT_MAX_IN_FLIGHT);
    // Each endpoint's pool holds as many connections as its lane lets attempts run, so none waits for one.
    const http = new WebhookHttpClient({ extraCaPem: config.extraCaPem, maxSocketsPerTarget: perEndpoint });
    return new WebhookNetwork(new UrlSafety({ resolver, devHosts: config.devHosts }), http, perEndpoint);
  }

  /** The check for a delivery: concurrent checks of one URL share the lookup. */
  checkForDelivery(url: string): Promise<UrlCheck> {
    const running = this.inFlight.get(url);
    if (running) return running;
    const check = this.urlSafety.check(url).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, check);
    return check;
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
