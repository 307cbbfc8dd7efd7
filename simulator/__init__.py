"""A scripted Android that implements the Device protocol and emits real uiautomator XML."""
