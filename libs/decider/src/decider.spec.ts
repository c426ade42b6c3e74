import { DomainError } from '#platform/errors';
import { assertNever, foldEvents, type Command, type Decider } from './decider';
import { deciderSpecification } from './decider-specification.test-helpers';

// A counter that refuses to go past its limit: the smallest decider with a rule and a clock.
type CounterEvent = { type: 'Incremented'; data: { at: string } };
type CounterCommand = Command<'Increment', { limit: number }> | Command<'Reset', Record<string, never>>;
const counter: Decider<number, CounterCommand, CounterEvent> = {
  initialState: () => 0,
  evolve: (count) => count + 1,
  decide: (command, count) => {
    switch (command.type) {
      case 'Increment':
        if (count >= command.data.limit) throw new DomainError('invalid_transition', 'At the limit.');
        return [{ type: 'Incremented', data: { at: command.metadata.now.toISOString() } }];
      case 'Reset':
        return [];
      default:
        return assertNever(command);
    }
  },
};
const at = (iso: string) => ({ type: 'Incremented' as const, data: { at: iso } });
const increment = (limit: number, now: string): CounterCommand => ({ type: 'Increment', data: { limit }, metadata: { now: new Date(now) } });
const spec = deciderSpecification(counter);

describe('deciders', () => {
  it('fold events from the initial state', () => {
    expect(foldEvents(counter, [at('2026-01-01T00:00:00.000Z'), at('2026-01-01T00:00:01.000Z')])).toBe(2);
    expect(foldEvents(counter, [])).toBe(0);
  });

  it('take time from the command metadata', () =>
    spec
      .given([])
      .when(increment(1, '2026-11-27T08:00:00.000Z'))
      .then([at('2026-11-27T08:00:00.000Z')]));

  it('refuse with a DomainError code', () =>
    spec
      .given([at('2026-11-27T08:00:00.000Z')])
      .when(increment(1, '2026-11-27T08:00:01.000Z'))
      .thenThrows('invalid_transition'));

  it('fail a Given/When/Then whose events or error differ', () => {
    expect(() => spec.given([]).when(increment(1, '2026-11-27T08:00:00.000Z')).then([])).toThrow();
    expect(() => spec.given([]).when(increment(1, '2026-11-27T08:00:00.000Z')).thenThrows('invalid_transition')).toThrow();
    expect(() =>
      spec
        .given([at('2026-11-27T08:00:00.000Z')])
        .when(increment(1, '2026-11-27T08:00:01.000Z'))
        .thenThrows('not_found'),
    ).toThrow();
  });

  it('assertNever throws on a case the types said could not happen', () => {
    expect(() => assertNever({ type: 'Unknown' } as never)).toThrow('Unhandled case: {"type":"Unknown"}');
  });
});
