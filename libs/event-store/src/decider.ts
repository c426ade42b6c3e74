/**
 * A pure decider (Emmett / Jérémie Chassaing style): `decide` turns a command and the current state
 * into new events or throws a DomainError; `evolve` folds one event into the state. No I/O, no clock.
 */
export interface Decider<State, Command, Event> {
  initialState: () => State;
  decide: (command: Command, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
}

export function foldEvents<State, Event>(decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/** Compile-time exhaustiveness guard at the end of every `decide` switch. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
