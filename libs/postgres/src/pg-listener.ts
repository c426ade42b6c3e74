import { Client } from 'pg';

/**
 * A LISTEN connection that calls `onNotify` (with the payload) for every notification on `channel` and reconnects in
 * the background when the connection drops. Callers keep a fallback poll: a notification sent while
 * the listener was down is lost, the rows it announced are not.
 */
export class PgListener {
  private client: Client | null = null;
  private running = false;
  private reconnecting = false;

  constructor(
    private readonly options: {
      databaseUrl: string;
      channel: string;
      applicationName: string;
      onNotify: (payload?: string) => void;
      onError?: (error: unknown) => void;
    },
  ) {}

  async start(): Promise<void> {
    this.running = true;
    await this.connect();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.options.databaseUrl, application_name: this.options.applicationName });
    client.on('notification', (message) => this.options.onNotify(message.payload));
    client.on('error', (error) => {
      this.options.onError?.(error);
      this.client = null;
      void client.end().catch(() => undefined);
      void this.reconnect();
    });
    await client.connect();
    await client.query(`listen "${this.options.channel}"`);
    this.client = client;
  }

  private async reconnect(): Promise<void> {
    // One loop at a time: a connection that fails while the loop tries it reports its error here too.
    if (this.reconnecting) return;
    this.reconnecting = true;
    try {
      await this.reconnectLoop();
    } finally {
      this.reconnecting = false;
    }
  }

  private async reconnectLoop(): Promise<void> {
    for (let attempt = 1; this.running && !this.client; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * attempt, 10_000)));
      if (!this.running) return;
      try {
        await this.connect();
        // Whatever was announced while down is waiting: look now.
        this.options.onNotify();
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }
}
