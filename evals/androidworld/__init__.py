"""The AndroidWorld adapter: our agent as an AndroidWorld agent, and `eval --suite androidworld`.

`convert` is pure (no android_world import) and tested in CI; `step` runs the agent one step per
call against anything with AndroidWorld's state and action surface; `agent` is the
`EnvironmentInteractingAgent` subclass (imports android_world); `suite` drives AndroidWorld's own
suite runner, checkpoints and scoring.
"""
