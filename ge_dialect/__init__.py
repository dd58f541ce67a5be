"""The `ge` dialect: formats, layouts, ops and their semantics.

The modules that need no IR (formats, dtype names, relayouts, limits, files,
diagnostics) import no xDSL, so a run that needs no compiler (`ge-run` of a
served `.om`) loads none. The attributes module installs MLIR's float-literal
rules into xDSL's parser and printer (`ge_dialect.float_literals`) for every
module that builds, prints or parses `ge` IR.
"""
