"""The suite runs on the compiled rules engine when a build matches the sources
(``scripts/setup.sh`` makes one): activated here, before any test imports the rules."""

from tablewatch import native

native.activate()
