import { KAFKA_ACCESS, KAFKA_APPS, kafkaAcls, kafkaTopicsOf, kafkaUseRefusal, kafkaUsesCheck, type KafkaApp } from './kafka-access';
import { allTopicSpecs, RPC_SERVICES, TOPICS, type DomainTopicKey } from './topics';

const apps = (predicate: (app: KafkaApp) => boolean) => KAFKA_APPS.filter(predicate);

describe('the Kafka access map', () => {
  it('has one producer per domain topic (so whatever is consumed has one) and one server per RPC service', () => {
    for (const key of Object.keys(TOPICS) as DomainTopicKey[])
      expect({ key, producers: apps((app) => KAFKA_ACCESS[app].produces.includes(key)) }).toEqual({ key, producers: [expect.any(String)] });
    for (const service of RPC_SERVICES)
      expect({ service, servers: apps((app) => KAFKA_ACCESS[app].serves === service) }).toEqual({ service, servers: [expect.any(String)] });
  });

  it('lets every topic of the platform be touched by some app, and no app touch a topic that does not exist', () => {
    const specs = new Set(allTopicSpecs().map((spec) => spec.name));
    const touched = new Set(KAFKA_APPS.flatMap((app) => kafkaTopicsOf(app)));
    expect([...touched].filter((topic) => !specs.has(topic))).toEqual([]);
    expect([...specs].filter((topic) => !touched.has(topic))).toEqual([]);
  });
});

describe('kafkaAcls (a production KafkaUser)', () => {
  it('grants per topic what the app does there: messaging writes its events and handoffs, reads what it projects, answers messaging.rpc', () => {
    const acls = kafkaAcls('messaging');
    const on = (type: string, name: string) =>
      acls.find((acl) => acl.resource.type === type && 'name' in acl.resource && acl.resource.name === name)?.operations;
    expect(on('topic', 'messaging.events')).toEqual(['Create', 'Describe', 'Write']);
    expect(on('topic', 'chat.outbound')).toEqual(['Create', 'Describe', 'Write']);
    expect(on('topic', 'chat.user-events')).toEqual(['Create', 'Describe', 'Read']);
    expect(on('topic', 'messaging.rpc')).toEqual(['Create', 'Describe', 'Read']);
    expect(on('topic', 'messaging.rpc.reply')).toEqual(['Create', 'Describe', 'Write']);
    expect(on('topic', 'consent.rpc')).toBeUndefined();
    expect(on('topic', 'webhooks.events')).toBeUndefined();
    expect(on('group', 'messaging.user-events')).toEqual(['Describe', 'Read']);
    expect(on('group', 'messaging.rpc-servers')).toEqual(['Describe', 'Read']);
    expect(acls.at(-1)).toEqual({ resource: { type: 'cluster' }, operations: ['IdempotentWrite'] });
  });

  it('names per-process groups by prefix, and every name under the namespace given', () => {
    const acls = kafkaAcls('gateway', 'stage.');
    const groups = acls.flatMap((acl) => (acl.resource.type === 'group' ? [acl.resource] : []));
    expect(groups).toEqual([
      { type: 'group', name: 'stage.gateway-replies-', patternType: 'prefix' },
      { type: 'group', name: 'stage.gateway.app-access', patternType: 'literal' },
      { type: 'group', name: 'stage.gateway.caches.', patternType: 'prefix' },
      { type: 'group', name: 'stage.gateway.rpc-servers', patternType: 'literal' },
    ]);
    for (const acl of acls) if ('name' in acl.resource) expect(acl.resource.name.startsWith('stage.')).toBe(true);
  });

  it('never grants a wildcard', () => {
    for (const app of KAFKA_APPS) for (const acl of kafkaAcls(app)) if ('name' in acl.resource) expect(acl.resource.name).not.toContain('*');
  });
});

describe('kafkaUseRefusal and kafkaUsesCheck', () => {
  it('refuses a consumer, topic, publication, service or reply group the map does not give the app', () => {
    expect(kafkaUseRefusal('messaging', { kind: 'consumer', name: 'user-events', topics: ['chat.user-events'] }, '')).toBeNull();
    expect(kafkaUseRefusal('messaging', { kind: 'consumer', name: 'user-events', topics: ['chat.user-events', 'webhooks.events'] }, '')).toContain(
      'may not read webhooks.events',
    );
    expect(kafkaUseRefusal('messaging', { kind: 'consumer', name: 'spy', topics: ['messaging.events'] }, '')).toContain('has no consumer spy');
    expect(kafkaUseRefusal('consent', { kind: 'produce', topic: 'messaging.events' }, '')).toContain('may not publish to messaging.events');
    expect(kafkaUseRefusal('media', { kind: 'serve', service: 'profile' }, '')).toContain('may not answer profile');
    expect(kafkaUseRefusal('console', { kind: 'call', service: 'chat-sim', replyGroup: 'gateway-replies-console-1' }, '')).toContain('may not call chat-sim');
    expect(kafkaUseRefusal('console', { kind: 'call', service: 'gateway', replyGroup: 'gateway-replies-1' }, '')).toContain('reply group');
    expect(kafkaUseRefusal('console', { kind: 'call', service: 'gateway', replyGroup: 'test.gateway-replies-console-1' }, 'test.')).toBeNull();
    expect(kafkaUseRefusal('billing', { kind: 'produce', topic: 'billing.events' }, '')).toContain('not an app');
  });

  it('names what the map grants and the code does not use', () => {
    expect(kafkaUsesCheck('media', [{ kind: 'serve', service: 'media' }], '')).toEqual({
      refused: [],
      unused: ['consumer user-media', 'publishing to media.events'],
    });
  });
});
