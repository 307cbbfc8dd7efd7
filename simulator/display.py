"""The simulated phone's display and the bands System UI keeps for itself on it.

Metrics are those of a 1080x2400 phone at 420 dpi (1 dp = 2.625 px), taken from real dumps of
that size: a 63 px status bar, a 63 px gesture-navigation bar, Gboard's keyboard from 1587 px.
"""

from __future__ import annotations

from simulator.view import Rect

WIDTH = 1080
HEIGHT = 2400
STATUS_BAR = 63
NAV_BAR_TOP = 2337
KEYBOARD_TOP = 1587
SCREEN = Rect(0, 0, WIDTH, HEIGHT)
