"""System UI: the windows Android draws over the apps, each in its module: the status bar,
the keyboard and toasts."""

SYSTEM_UI = "com.android.systemui"
