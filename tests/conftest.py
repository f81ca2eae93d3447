"""The suite runs on the compiled rules engine when a build matches the sources
(``scripts/setup.sh`` makes one): activated here, before any test imports the rules."""

from tablewatch import native

native.activate()

from hypothesis import settings  # noqa: E402

# Speed is measured by benchmarks/, never by a test: no per-example deadline, which a
# loaded machine (2 shared cores, CI) would otherwise turn into failures.
settings.register_profile("tablewatch", deadline=None)
settings.load_profile("tablewatch")
