"""`wm` and `dumpsys window`: the screen's size and density and the window in focus."""

from __future__ import annotations

from simulator.adbd.intents import LAUNCHER_ACTIVITY
from simulator.adbd.phone import ServedPhone
from simulator.adbd.sh import CommandFunction, Invocation

DENSITY_DPI = 420


class WindowManager:
    """The window manager's answers, in the lines clients parse on real phones."""

    def __init__(self, phone: ServedPhone) -> None:
        self._phone = phone

    def commands(self) -> dict[str, CommandFunction]:
        return {"wm": self._wm, "dumpsys": self._dumpsys}

    def _natural_size(self) -> tuple[int, int]:
        # The simulated phone does not rotate: its current size is its natural size.
        return self._phone.screen_size()

    def _focus_component(self) -> str:
        package = self._phone.foreground_app()
        return f"{package}/{package}{LAUNCHER_ACTIVITY}"

    def _wm(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args == ["size"]:
            width, height = self._natural_size()
            invocation.out(f"Physical size: {width}x{height}\n")
            return 0
        if args == ["density"]:
            invocation.out(f"Physical density: {DENSITY_DPI}\n")
            return 0
        invocation.err("wm: only `wm size` and `wm density` are available on this phone\n")
        return 1

    def _dumpsys(self, invocation: Invocation) -> int:
        args = invocation.argv[1:]
        if args[:1] != ["window"]:
            invocation.out(f"Can't find service: {args[0] if args else '(none)'}\n")
            return 0
        width, height = self._natural_size()
        component = self._focus_component()
        package, _, activity = component.partition("/")
        short = activity[len(package) :] if activity.startswith(package + ".") else activity
        invocation.out(
            "WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n"
            "  Display: mDisplayId=0 rootTasks=1\n"
            f"    init={width}x{height} {DENSITY_DPI}dpi base={width}x{height} {DENSITY_DPI}dpi "
            f"cur={width}x{height} app={width}x{height} rng={width}x{width}-{height}x{height}\n"
            "    mLayoutSeq=212\n"
            f"  mCurrentFocus=Window{{9b1c2e4 u0 {component}}}\n"
            f"  mFocusedApp=ActivityRecord{{4f0a7d1 u0 {package}/{short} t17}}\n"
            "  DisplayRotation\n"
            "    mRotation=0 mDeferredRotationPauseCount=0\n"
            "    WindowOrientationListener\n"
            "      mCurrentRotation=ROTATION_0\n"
        )
        return 0
