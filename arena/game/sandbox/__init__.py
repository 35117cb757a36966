"""How a bot's process is confined.

:mod:`.bwrap` builds the bubblewrap command line (namespaces, the files a bot
sees, its environment) and :mod:`.spawn` runs it; :mod:`.seccomp` is the
system-call filter it loads;
:mod:`.cgroups` gives each bot a cgroup for memory, tasks and CPU.
"""
