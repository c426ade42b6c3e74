import type { ErrorCode } from '#platform/contracts';
import { DomainError } from '#platform/errors';
import type { Decider } from './decider';

/**
 * Given/When/Then for deciders (Emmett's DeciderSpecification), for `*.spec.ts` files as
 * `#platform/decider/testing` (it asserts with Jest's `expect`):
 * `spec.given([events]).when(command).then([events])` or `.thenThrows('code')`.
 */
export function deciderSpecification<State, Cmd, Event>(decider: Decider<State, Cmd, Event>) {
  return {
    given(events: Event[]) {
      return {
        when(command: Cmd) {
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
