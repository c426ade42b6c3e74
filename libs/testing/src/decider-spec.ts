import type { Decider } from '@platform/event-store';
import { DomainError } from '@platform/errors';
import type { ErrorCode } from '@platform/contracts';

/**
 * Given/When/Then for pure deciders (Emmett's DeciderSpecification):
 * `spec.given([events]).when(command).then([events])` or `.thenThrows('code')`.
 */
export function deciderSpecification<State, Command, Event>(decider: Decider<State, Command, Event>) {
  return {
    given(events: Event[]) {
      return {
        when(command: Command) {
          const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]) {
              expect(run()).toEqual(expected);
            },
            thenThrows(code: ErrorCode, check?: (error: DomainError) => void) {
              let thrown: unknown;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              expect(thrown).toBeInstanceOf(DomainError);
              expect((thrown as DomainError).code).toBe(code);
              check?.(thrown as DomainError);
            },
          };
        },
      };
    },
  };
}
