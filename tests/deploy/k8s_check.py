#!/usr/bin/python3
"""tests/deploy/k8s_check.py FILE...: check Kubernetes manifests against the
API's own types, offline.

`kubectl apply --dry-run=client` still asks an API server for discovery and
its OpenAPI schema, and Debian ships no API server to ask. The Python client
(Debian's python3-kubernetes) carries the same types generated from the
API's OpenAPI document: for every object, each field's name and type, and
which fields are required. Every document of every FILE is walked against
them: an unknown field (a typo), a wrong type or a missing required field
is an error naming the file, the document and the path. Exit 1 on any.
"""
import sys

import yaml
from kubernetes import client

KINDS = {
    ("v1", "ConfigMap"): "V1ConfigMap",
    ("v1", "Secret"): "V1Secret",
    ("v1", "Service"): "V1Service",
    ("v1", "PersistentVolumeClaim"): "V1PersistentVolumeClaim",
    ("apps/v1", "StatefulSet"): "V1StatefulSet",
    ("apps/v1", "Deployment"): "V1Deployment",
}
PRIMITIVE = {"str": str, "int": int, "bool": bool, "float": (int, float)}


def check(value, typ, path, errors):
    if typ.startswith("list["):
        if not isinstance(value, list):
            errors.append(f"{path}: a list expected")
            return
        for i, v in enumerate(value):
            check(v, typ[5:-1], f"{path}[{i}]", errors)
        return
    if typ.startswith("dict("):
        if not isinstance(value, dict):
            errors.append(f"{path}: a mapping expected")
            return
        inner = typ[typ.index(",") + 1 : -1].strip()
        for k, v in value.items():
            check(v, inner, f"{path}.{k}", errors)
        return
    if typ == "object":  # IntOrString, RawExtension: any scalar or mapping
        return
    if typ == "datetime":
        return
    if typ in PRIMITIVE:
        if not isinstance(value, PRIMITIVE[typ]) or (
            typ == "int" and isinstance(value, bool)
        ):
            errors.append(f"{path}: {typ} expected, got {value!r}")
        return
    cls = getattr(client, typ)
    if not isinstance(value, dict):
        errors.append(f"{path}: a {typ} mapping expected")
        return
    by_json = {j: p for p, j in cls.attribute_map.items()}
    kwargs = {}
    for k, v in value.items():
        if k not in by_json:
            errors.append(f"{path}.{k}: unknown field of {typ}")
            continue
        check(v, cls.openapi_types[by_json[k]], f"{path}.{k}", errors)
        kwargs[by_json[k]] = v
    try:  # the setters refuse a required field left out
        cls(**kwargs)
    except ValueError as e:
        errors.append(f"{path}: {e}")


def main(paths):
    errors, count = [], 0
    for path in paths:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        for n, doc in enumerate(docs, 1):
            key = (doc.get("apiVersion"), doc.get("kind"))
            name = doc.get("metadata", {}).get("name", "?")
            where = f"{path}: document {n} ({key[1]} {name})"
            if key not in KINDS:
                errors.append(f"{where}: unexpected kind {key}")
                continue
            before = len(errors)
            check(doc, KINDS[key], where, errors)
            count += 1
            if len(errors) == before:
                print(f"ok: {key[1]} {name} ({KINDS[key]})")
    for e in errors:
        print(f"error: {e}")
    print(f"k8s_check: {count} objects, {len(errors)} errors")
    return 1 if errors or not count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
