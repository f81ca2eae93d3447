# The two commands of the README: `make demo` (main job) and `make test` (whole suite).
.PHONY: setup test demo bench kafka-up kafka-down

setup:
	scripts/setup.sh

test:
	scripts/test.sh

demo:
	scripts/demo.sh

bench: setup
	.venv/bin/python benchmarks/bench_hands.py

kafka-up:
	deploy/kafka.sh start && deploy/kafka.sh topics

kafka-down:
	deploy/kafka.sh stop
