import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ID_PREFIX, idTimeFloor, idTimeMs, newId, type EndpointRecovery, type RecoverEndpointCall } from '#platform/contracts';
import { RpcDispatcher } from '#platform/kafka';
import { runStatement } from '#platform/postgres';
import { currentTraceparent, log, ServiceRuntime } from '#platform/service-kit';
import { recoveryDecider, type RecoveryCommand, type RecoveryEndpoint } from './recovery.decider';
import type { Recovery, RecoveryEvent, RecoveryState } from './recovery.state';
import {
  candidatesStatement,
  endpointStatement,
  finishRecoveryStatement,
  latestRecoveryStatement,
  recoveredDeliveriesStatement,
  recoveryProgressStatement,
  recoveryState,
  startRecoveryStatement,
  type CandidateRow,
  type RecoveryEndpointRow,
  type RecoveryRow,
} from './recovery.sql';

/** Id prefix of a recovery (it never appears in the API: only deliveries carry it). */
export const RECOVERY_PREFIX = 'wr_';

/** Events looked through per transaction: each stays short, since a long write transaction holds every relay back (architecture section 2). */
const BATCH = 500;

/**
 * POST /webhooks/{id}/recover (ADR 0224), decided by the recovery decider on facts read here: the
 * start in one transaction that locks the endpoint (so recoveries of an endpoint start one after
 * another), then the app's kept events since `since`, type by type in id order, a batch per short
 * transaction, each batch's deliveries decided and inserted with the recovery's progress, and the
 * finish. The deliveries are ordinary pending deliveries of the endpoint's lane: the worker sends
 * them as it sends any, fairly between endpoints and apps.
 */
@Injectable()
export class RecoveriesHandler implements OnModuleInit {
  constructor(
    @Inject(ServiceRuntime) private readonly runtime: ServiceRuntime,
    @Inject(RpcDispatcher) private readonly rpc: RpcDispatcher<'webhooks'>,
  ) {}

  onModuleInit(): void {
    this.rpc.registerAll({ 'endpoints.recover': (p) => this.recover(p) });
  }

  async recover(p: RecoverEndpointCall): Promise<EndpointRecovery> {
    const appId = String(p.appId);
    const endpointId = String(p.endpointId);
    const traceparent = currentTraceparent() ?? null;
    const startedAt = Date.now();
    const recovery = await this.start(appId, endpointId, String(p.since));
    // What on-call sees of a recovery: how many deliveries it made, and how long that took.
    const done = (recovered: number, stopped: boolean): EndpointRecovery => {
      log('info', 'endpoint recovery created its deliveries', {
        appId,
        endpointId,
        recoveryId: recovery.recoveryId,
        recovered,
        stopped,
        ms: Date.now() - startedAt,
      });
      return { recovered };
    };
    try {
      for (const type of recovery.eventTypes) {
        let after = '';
        for (;;) {
          const step = await this.createBatch(appId, recovery, type, after, traceparent);
          if (step.stopped) return done(step.recovered, true);
          if (step.lastEventId === null) break;
          after = step.lastEventId;
        }
      }
      return done(await this.finish(appId, recovery), false);
    } catch (error) {
      // What was created stays; finishing lets the next recovery start once those deliveries end.
      await this.finish(appId, recovery).catch(() => undefined);
      throw error;
    }
  }

  private async start(appId: string, endpointId: string, since: string): Promise<Recovery> {
    const now = this.runtime.clock.now();
    return this.runtime.em().transactional(async (tx) => {
      const [endpoint] = await runStatement<RecoveryEndpointRow>(tx, endpointStatement(appId, endpointId, 'update'));
      const [latest] = endpoint ? await runStatement<RecoveryRow>(tx, latestRecoveryStatement(endpointId)) : [];
      const command: RecoveryCommand = {
        type: 'StartRecovery',
        data: {
          recoveryId: newId(RECOVERY_PREFIX, now.getTime()),
          endpointId,
          since,
          endpoint: endpoint ? endpointFacts(endpoint) : null,
          deliveriesPending: latest?.deliveries_pending ?? false,
          creatorGone: latest?.creator_gone ?? false,
        },
        metadata: { now },
      };
      const [started] = recoveryDecider.decide(command, recoveryState(latest));
      if (started?.type !== 'RecoveryStarted') throw new Error('a recovery starts with RecoveryStarted');
      await runStatement(tx, startRecoveryStatement({ appId, ...started.data }));
      const { startedAt: _startedAt, ...recovery } = started.data;
      return recovery;
    });
  }

  /** One batch of one type after `after`: its deliveries and the recovery's progress, or its stop; the last event id looked at (null: the type is done). */
  private async createBatch(
    appId: string,
    recovery: Recovery,
    type: Recovery['eventTypes'][number],
    after: string,
    traceparent: string | null,
  ): Promise<{ stopped: boolean; recovered: number; lastEventId: string | null }> {
    const now = this.runtime.clock.now();
    return this.runtime.em().transactional(async (tx) => {
      // The endpoint first, then the recovery: the order a start locks them in.
      const [endpoint] = await runStatement<RecoveryEndpointRow>(tx, endpointStatement(appId, recovery.endpointId, 'share'));
      const state = await this.ownState(tx, recovery);
      const rows = await runStatement<CandidateRow>(
        tx,
        candidatesStatement({
          appId,
          endpointId: recovery.endpointId,
          type,
          from: idTimeFloor(ID_PREFIX.event, Date.parse(recovery.since)),
          after,
          until: idTimeFloor(ID_PREFIX.event, Date.parse(recovery.until)),
          limit: BATCH,
        }),
      );
      const command: RecoveryCommand = {
        type: 'CreateRecoveryDeliveries',
        data: {
          endpoint: endpoint ? endpointFacts(endpoint) : null,
          candidates: rows.map((r) => ({
            eventId: r.event_id,
            eventType: r.type,
            // Ids in the range are time-ordered ids: their time is there.
            happenedAt: new Date(idTimeMs(r.event_id, ID_PREFIX.event) ?? 0).toISOString(),
            delivered: r.delivered,
            pending: r.pending,
            lastDeliveryId: r.last_delivery_id,
          })),
        },
        metadata: { now },
      };
      const events = recoveryDecider.decide(command, state);
      const next = events.reduce(recoveryDecider.evolve, state);
      await this.persist(tx, { appId, recovery, now, traceparent }, events, next);
      return {
        stopped: next.status === 'finished',
        recovered: recoveredBy(next),
        lastEventId: rows.length < BATCH ? null : rows[rows.length - 1].event_id,
      };
    });
  }

  private async finish(appId: string, recovery: Recovery): Promise<number> {
    const now = this.runtime.clock.now();
    return this.runtime.em().transactional(async (tx) => {
      const state = await this.ownState(tx, recovery);
      const events = recoveryDecider.decide({ type: 'FinishRecovery', data: {}, metadata: { now } }, state);
      const next = events.reduce(recoveryDecider.evolve, state);
      await this.persist(tx, { appId, recovery, now, traceparent: null }, events, next);
      return recoveredBy(next);
    });
  }

  /** The endpoint's latest recovery, locked; it must still be this one (a recovery whose creator was taken for gone may have been replaced). */
  private async ownState(tx: EntityManager, recovery: Recovery): Promise<RecoveryState> {
    const [row] = await runStatement<RecoveryRow>(tx, latestRecoveryStatement(recovery.endpointId));
    if (row?.recovery_id !== recovery.recoveryId) throw new Error(`recovery ${recovery.recoveryId} was replaced by another`);
    return recoveryState(row);
  }

  /** Writes what the decided events say, with the count the state holds after them. */
  private async persist(
    tx: EntityManager,
    { appId, recovery, now, traceparent }: { appId: string; recovery: Recovery; now: Date; traceparent: string | null },
    events: RecoveryEvent[],
    after: RecoveryState,
  ): Promise<void> {
    for (const event of events) {
      switch (event.type) {
        case 'RecoveryStarted':
          throw new Error('a recovery starts once');
        case 'RecoveryDeliveriesCreated':
          await runStatement(
            tx,
            recoveredDeliveriesStatement({
              appId,
              endpointId: recovery.endpointId,
              recoveryId: recovery.recoveryId,
              deliveries: event.data.deliveries,
              now,
              traceparent,
            }),
          );
          break;
        case 'RecoveryFinished':
          await runStatement(tx, finishRecoveryStatement(recovery.endpointId, recovery.recoveryId, event.data.recovered, event.data.at));
          return;
      }
    }
    await runStatement(tx, recoveryProgressStatement(recovery.endpointId, recovery.recoveryId, recoveredBy(after)));
  }
}

const recoveredBy = (state: RecoveryState): number => (state.status === 'none' ? 0 : state.recovered);

const endpointFacts = (row: RecoveryEndpointRow): RecoveryEndpoint => ({ state: row.state, events: row.events });
