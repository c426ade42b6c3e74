import { createKafka, ensureTopics } from '#platform/kafka';
import { runMain } from './bootstrap';
import { ConfigError, loadBaseConfig } from './config';
import { bootstrapServiceSchema, createOrm, runMigrations } from './database';
import { MigrateOnlyComplete, ServiceRuntime } from './service-runtime';

// MIGRATE_ONLY=true (the Kubernetes migrations Job): role, schema and migrations on Postgres, then exit 0.
jest.mock('./database', () => ({
  bootstrapServiceSchema: jest.fn(async () => undefined),
  createOrm: jest.fn(async () => ({ close: jest.fn(async () => undefined) })),
  runMigrations: jest.fn(async () => ['Migration20250101000000']),
}));
jest.mock('#platform/kafka', () => ({ ...jest.requireActual('#platform/kafka'), createKafka: jest.fn(), ensureTopics: jest.fn() }));

describe('MIGRATE_ONLY', () => {
  beforeEach(() => {
    jest.clearAllMocks();
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  it('is off unless MIGRATE_ONLY=true, and any other value than true or false is refused', () => {
    expect(loadBaseConfig('profile', 'profile', 3040, {}).migrateOnly).toBe(false);
    expect(loadBaseConfig('profile', 'profile', 3040, { MIGRATE_ONLY: 'false' }).migrateOnly).toBe(false);
    expect(loadBaseConfig('profile', 'profile', 3040, { MIGRATE_ONLY: 'true' }).migrateOnly).toBe(true);
    expect(() => loadBaseConfig('profile', 'profile', 3040, { MIGRATE_ONLY: 'yes' })).toThrow(ConfigError);
  });

  it('init() creates the role and schema, migrates, closes the ORM and stops there, without Kafka', async () => {
    const config = loadBaseConfig('profile', 'profile', 3040, { MIGRATE_ONLY: 'true', DATABASE_URL: 'postgres://admin@db:5432/platform' });
    const runtime = new ServiceRuntime({ config, entities: [], migrations: [], outboxRoute: () => null });
    await expect(runtime.init()).rejects.toBeInstanceOf(MigrateOnlyComplete);
    expect(bootstrapServiceSchema).toHaveBeenCalledWith('postgres://admin@db:5432/platform', 'profile', config.serviceDatabasePassword);
    expect(createOrm).toHaveBeenCalledWith(expect.objectContaining({ url: 'postgres://svc_profile@db:5432/platform', schema: 'profile' }));
    expect(runMigrations).toHaveBeenCalledTimes(1);
    expect(runtime.orm.close).toHaveBeenCalled();
    expect(createKafka).not.toHaveBeenCalled();
    expect(ensureTopics).not.toHaveBeenCalled();
  });

  it('runMain exits 0 after MIGRATE_ONLY migrations and 1 on a failed start', async () => {
    const exitCode = (start: () => Promise<never>) =>
      new Promise<number | undefined>((resolve) => {
        jest.spyOn(process, 'exit').mockImplementation(((code?: number) => resolve(code)) as never);
        runMain(start);
      });
    expect(await exitCode(() => Promise.reject(new MigrateOnlyComplete('profile')))).toBe(0);
    expect(await exitCode(() => Promise.reject(new Error('Postgres unreachable')))).toBe(1);
  });
});
