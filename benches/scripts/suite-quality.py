#!/usr/bin/env python3
"""What an emitted suite offers a reader (issue 33), read from its source: per class under test
the tests, the assertions (assert*, assertThrows, fail), the tests with no assertion, the tests
whose only check is an expected exception, and the tests that use the library's non-public
classes or private members (a class of the class path without ACC_PUBLIC named in the test,
other than the class under test itself, or the PrivateAccess reflection helper).

Usage: suite-quality.py CLASSPATH OUT CLASS...   (prints one JSON line per class)
"""
import json
import os
import re
import struct
import sys
import zipfile

ASSERTION = re.compile(r"\b(assert[A-Z]\w*|fail)\s*\(")
THROWS = re.compile(r"\bassertThrows\s*\(")
SIMPLE = re.compile(r"(?<![\w.])([A-Z]\w*(?:\.[A-Z]\w*)*)")
QUALIFIED = re.compile(r"\b((?:[a-z_]\w*\.)+[A-Z]\w*(?:\.[A-Z]\w*)*)")


def access_flags(data):
    """The access flags of a class file: after the magic, versions and the constant pool."""
    count = struct.unpack(">H", data[8:10])[0]
    i, k = 10, 1
    while k < count:
        tag = data[i]
        if tag == 1:
            i += 3 + struct.unpack(">H", data[i + 1:i + 3])[0]
        elif tag in (7, 8, 16, 19, 20):
            i += 3
        elif tag == 15:
            i += 4
        elif tag in (3, 4, 9, 10, 11, 12, 17, 18):
            i += 5
        elif tag in (5, 6):
            i += 9
            k += 1
        else:
            raise ValueError(f"constant pool tag {tag}")
        k += 1
    return struct.unpack(">H", data[i:i + 2])[0]


def library(classpath):
    """Binary name -> public, for every class of the class path's jars and directories."""
    public = {}
    for entry in classpath.split(":"):
        if entry.endswith(".jar") and os.path.isfile(entry):
            with zipfile.ZipFile(entry) as z:
                for n in z.namelist():
                    if n.endswith(".class") and not n.startswith("META-INF"):
                        try:
                            public[n[:-6].replace("/", ".")] = bool(access_flags(z.read(n)) & 1)
                        except (ValueError, struct.error, IndexError):
                            pass
        elif os.path.isdir(entry):
            for d, _, files in os.walk(entry):
                for f in files:
                    if f.endswith(".class"):
                        p = os.path.join(d, f)
                        name = os.path.relpath(p, entry)[:-6].replace(os.sep, ".")
                        try:
                            public[name] = bool(access_flags(open(p, "rb").read()) & 1)
                        except (ValueError, struct.error, IndexError):
                            pass
    return public


def tests_of(source):
    """The bodies of the @Test methods, in order."""
    parts = re.split(r"\n\s*@Test\b", source)
    return parts[1:]


def resolve(token, package, imports, public):
    """The binary name a type token in the test denotes, if it is a class of the class path."""
    head, *rest = token.split(".")
    for outer in (imports.get(head), f"{package}.{head}"):
        if outer:
            name = outer + "".join("$" + r for r in rest)
            if name in public:
                return name
    return None


def measure(public, source, package, cut=None):
    """The row of one suite; `cut` (the class under test, binary name) is not counted as
    non-public: a test of a package-private class has to name it (its non-public nested
    classes do count)."""
    imports = {}
    for m in re.finditer(r"^import\s+([\w.]+)\s*;", source, re.M):
        imports[m.group(1).rsplit(".", 1)[-1]] = m.group(1)
    row = {"tests": 0, "assertions": 0, "no_assertion": 0, "exception_only": 0, "non_public": 0}
    for body in tests_of(source):
        row["tests"] += 1
        n = len(ASSERTION.findall(body))
        row["assertions"] += n
        if n == 0:
            row["no_assertion"] += 1
        elif n == len(THROWS.findall(body)):
            row["exception_only"] += 1
        hidden = "PrivateAccess." in body
        for m in SIMPLE.finditer(body):
            name = resolve(m.group(1), package, imports, public)
            if name and not public[name] and name != cut:
                hidden = True
                break
        if not hidden:
            for m in QUALIFIED.finditer(body):
                parts = m.group(1).split(".")
                for j in range(len(parts)):
                    if parts[j][:1].isupper():
                        name = ".".join(parts[:j + 1]) + "".join("$" + p for p in parts[j + 1:])
                        if name in public and not public[name] and name != cut:
                            hidden = True
                        break
        row["non_public"] += hidden
    return row


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    classpath, out, classes = sys.argv[1], sys.argv[2], sys.argv[3:]
    public = library(classpath)
    for cls in classes:
        path = os.path.join(out, "src", "test", "java", *cls.split(".")) + "Test.java"
        row = {"class": cls, "found": os.path.exists(path)}
        if row["found"]:
            source = open(path, encoding="utf-8").read()
            row.update(measure(public, source, cls.rsplit(".", 1)[0], cls))
        print(json.dumps(row, sort_keys=True))


if __name__ == "__main__":
    main()
