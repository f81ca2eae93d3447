"""Smoke test for the local broker started by deploy/kafka.sh.

Produces one message with a unique key and reads it back with kafka-python.

    python deploy/kafka_smoke.py [--bootstrap 127.0.0.1:9092] [--topic table-events]

Exit status 0 when the message round-trips, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid


def main() -> int:
    default_bootstrap = f"127.0.0.1:{os.environ.get('KAFKA_PORT', '9092')}"
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default=default_bootstrap)
    ap.add_argument("--topic", default="table-events")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds")
    args = ap.parse_args()

    try:
        from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    except ImportError:
        print("kafka-python is not installed (pip install kafka-python)", file=sys.stderr)
        return 1

    key = uuid.uuid4().hex.encode()
    value = b'{"smoke": true, "ts": %d}' % time.time_ns()

    t0 = time.monotonic()
    producer = KafkaProducer(bootstrap_servers=args.bootstrap, acks="all", linger_ms=0)
    meta = producer.send(args.topic, key=key, value=value).get(timeout=args.timeout)
    producer.flush()
    producer.close()
    t_produce = time.monotonic() - t0
    print(
        f"produced key={key.decode()} to {meta.topic}[{meta.partition}]@{meta.offset}"
        f" in {t_produce:.2f}s"
    )

    consumer = KafkaConsumer(
        bootstrap_servers=args.bootstrap,
        enable_auto_commit=False,
        consumer_timeout_ms=int(args.timeout * 1000),
    )
    tp = TopicPartition(meta.topic, meta.partition)
    consumer.assign([tp])
    consumer.seek(tp, meta.offset)
    deadline = time.monotonic() + args.timeout
    try:
        while time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=1000).values():
                for rec in records:
                    if rec.key == key:
                        if rec.value != value:
                            print(f"value mismatch: {rec.value!r} != {value!r}", file=sys.stderr)
                            return 1
                        print(
                            f"consumed key={key.decode()} at offset {rec.offset}"
                            f" ({time.monotonic() - t0:.2f}s round trip)"
                        )
                        return 0
    finally:
        consumer.close()
    print(f"message not consumed within {args.timeout}s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
