"""How a bot's process is confined.

:mod:`.bwrap` builds the bubblewrap command line (namespaces, the files a bot
sees, its environment) and :mod:`.spawn` runs it; :mod:`.seccomp` is the
system-call filter it loads;
:mod:`.cgroups` gives each bot a cgroup for memory, tasks and CPU;
:mod:`.ucounts` bounds each bot's share of the user's kernel pools when the
arena is not root; :mod:`.network` gives a bot a network of its own.
"""
