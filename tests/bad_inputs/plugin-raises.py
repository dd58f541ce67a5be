"""A plugin that fails while it is imported (ge-opt --load-plugin)."""

raise RuntimeError("this plugin is broken on purpose")
