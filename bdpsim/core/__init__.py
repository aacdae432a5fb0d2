"""The vocabulary every layer speaks: errors, config keys (schema), the plug-in registry, result
columns, and the bundled configs and data. Imports nothing else of bdpsim."""
