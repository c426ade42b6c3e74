/**
 * The shape of every aggregate's rules (Emmett / Jérémie Chassaing's deciders): `decide` turns a
 * command and the current state into new events or throws a DomainError; `evolve` folds one event
 * into the state. Pure: no I/O and no clock, so every rule is testable Given/When/Then.
 */
export interface Decider<State, Cmd, Event> {
  initialState: () => State;
  decide: (command: Cmd, state: State) => Event[];
  evolve: (state: State, event: Event) => State;
}

/** What arrives with every command besides its data: the time it is decided at, never read from a clock. */
export interface CommandMetadata {
  now: Date;
}

/** A command: its type, its data, and `metadata.now`. */
export interface Command<Type extends string, Data, Metadata extends CommandMetadata = CommandMetadata> {
  type: Type;
  data: Data;
  metadata: Metadata;
}

/** The state after `events`, from the decider's initial state. */
export function foldEvents<State, Event>(decider: Pick<Decider<State, unknown, Event>, 'initialState' | 'evolve'>, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/** Compile-time exhaustiveness guard at the end of every `decide` switch. */
export function assertNever(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
