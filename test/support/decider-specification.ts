import { expect } from 'vitest';
import type { Decider } from '../../domain/shared/decider.ts';

type ErrorClass = abstract new (...args: never[]) => Error;

/**
 * given(events).when(command).then(events) / .thenThrows(ErrorClass, properties), for any decider.
 * The "then" step also checks that the produced events evolve without error from the given state.
 */
export const deciderSpecification = <Command, Event, State>(decider: Decider<Command, Event, State>) => ({
  given: (history: Event[]) => ({
    when: (command: Command) => {
      const run = () => {
        const state = history.reduce(decider.evolve, decider.initialState());
        return { state, events: decider.decide(command, state) };
      };
      return {
        then: (expected: Event[]) => {
          const { state, events } = run();
          expect(events).toEqual(expected);
          events.reduce(decider.evolve, state);
        },
        thenThrows: <E extends ErrorClass>(errorClass: E, properties: Partial<InstanceType<E>> = {}) => {
          let thrown: unknown;
          try {
            run();
          } catch (error) {
            thrown = error;
          }
          expect(thrown, 'decide should have thrown').toBeInstanceOf(errorClass);
          expect(thrown).toMatchObject(properties);
        },
      };
    },
  }),
});
