import type { AppStatus, DomainEvent } from '#platform/contracts';
import { pollUntil, type ServiceRuntime } from '#platform/service-kit';
import { AppAccessView } from '../persistence/app-access.entity';

export interface AppAccess {
  appId: string;
  orgId: string;
  status: AppStatus;
  version: number;
}

type Entry = { access: AppAccess | null; loadedAt: number };

/**
 * App status for auth decisions: from memory, refreshed by profile.events on every replica as they
 * arrive, and read from the gateway's projection at most once per app per TTL.
 */
export class AppAccessCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly runtime: ServiceRuntime,
    private readonly ttlMs = 60_000,
  ) {}

  async get(appId: string): Promise<AppAccess | null> {
    const cached = this.entries.get(appId);
    if (cached && Date.now() - cached.loadedAt < this.ttlMs) return cached.access;
    return this.load(appId);
  }

  /** Applies an app event seen on profile.events (broadcast to every replica). */
  apply(event: DomainEvent): void {
    const data = event.data as { appId: string; orgId?: string; status?: AppStatus };
    const current = this.entries.get(data.appId)?.access;
    if (event.type === 'AppCreated') {
      if (!current || current.version < event.streamVersion) {
        this.entries.set(data.appId, {
          access: { appId: data.appId, orgId: data.orgId!, status: 'sandbox', version: event.streamVersion },
          loadedAt: Date.now(),
        });
      }
    } else if (event.type === 'AppStatusChanged') {
      if (current && current.version < event.streamVersion) {
        this.entries.set(data.appId, { access: { ...current, status: data.status!, version: event.streamVersion }, loadedAt: Date.now() });
      } else if (!current) {
        // Not cached here: the next request reads the projection.
        this.entries.delete(data.appId);
      }
    }
  }

  /** Waits until the projection holds at least `version` of the app (admin calls return after their effect). */
  waitForVersion(appId: string, version: number, timeoutMs = 10_000): Promise<boolean> {
    return pollUntil(async () => ((await this.load(appId))?.version ?? 0) >= version, timeoutMs, 10);
  }

  private async load(appId: string): Promise<AppAccess | null> {
    const view = await this.runtime.em().findOne(AppAccessView, { appId });
    const access = view ? { appId: view.appId, orgId: view.orgId, status: view.status, version: view.version } : null;
    const current = this.entries.get(appId)?.access;
    // Never step back: a broadcast may have brought a newer version than the projection holds yet.
    const best = current && access && current.version > access.version ? current : access;
    this.entries.set(appId, { access: best, loadedAt: Date.now() });
    return best;
  }
}
