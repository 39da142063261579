"""The runtime: the engine, the state and its one public API, actions, observation, saving a state.

The one package that may touch the state's insides."""
