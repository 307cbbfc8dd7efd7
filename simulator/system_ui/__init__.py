"""System UI: the windows Android draws over the apps, each in its module: the status bar,
the keyboard and toasts over every screen; the notification shade with quick settings, the
Internet panel of its Internet tile, and the system dialogs (the notification-permission
prompt, the low-battery warning) over the apps."""

SYSTEM_UI = "com.android.systemui"
