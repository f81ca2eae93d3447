"""TableWatch: surveillance and audit of casino table games."""

from tablewatch import native

native.activate()  # the compiled rules engine, when a build matches the sources
