"""Screen elements built by hand, for tests that need a screen no app draws."""

from __future__ import annotations

from agent.screen import Element


def element(
    index: int,
    role: str,
    label: str,
    bounds: tuple[int, int, int, int] = (0, 0, 10, 10),
    *,
    checked: bool | None = None,
    package: str = "",
    resource_id: str = "",
    class_name: str = "android.widget.FrameLayout",
) -> Element:
    """A clickable, enabled element; its center is the middle of `bounds`."""
    left, top, right, bottom = bounds
    return Element(
        index=index,
        role=role,
        label=label,
        checked=checked,
        enabled=True,
        focused=False,
        selected=False,
        password=False,
        scrollable=False,
        clickable=True,
        long_clickable=False,
        bounds=bounds,
        center=((left + right) // 2, (top + bottom) // 2),
        package=package,
        resource_id=resource_id,
        class_name=class_name,
    )
