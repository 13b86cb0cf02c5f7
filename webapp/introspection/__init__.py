"""Instance introspection under /-/: settings, versions, health; /favicon.ico."""
