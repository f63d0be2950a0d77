/**
 * An aggregate as three plain functions: the state before any event, how one event changes the state,
 * and which events a command produces in a given state (or which domain error it raises).
 */
export type Decider<Command, Event, State> = {
  initialState: () => State;
  evolve: (state: State, event: Event) => State;
  decide: (command: Command, state: State) => Event[];
};

export const replay = <Event, State>(
  decider: Pick<Decider<unknown, Event, State>, 'initialState' | 'evolve'>,
  events: Iterable<Event>,
): State => {
  let state = decider.initialState();
  for (const event of events) state = decider.evolve(state, event);
  return state;
};
