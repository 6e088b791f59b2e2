#!/usr/bin/python3
"""tests/prom_parse.py FILE: parse FILE with the Prometheus client's own
text-format parser (Debian python3-prometheus-client) and print what it
read, one line each, for tests/check_e2e.c:

    family NAME TYPE
    sample NAME k=v,k=v VALUE

Exit 1 with the parser's message if the text does not parse."""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = open(sys.argv[1], encoding="utf-8").read()
    try:
        for fam in text_string_to_metric_families(text):
            if not fam.documentation:
                raise ValueError("family %s has no HELP" % fam.name)
            print("family %s %s" % (fam.name, fam.type))
            for s in fam.samples:
                labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
                print("sample %s %s %r" % (s.name, labels or "-", s.value))
    except Exception as e:  # the parser raises ValueError and others
        print("prom_parse: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
