#!/usr/bin/env python3
"""A strict checker of Prometheus' text exposition format (0.0.4), for
ibsmd's GET /metrics (Debian 12 has promtool only inside the prometheus
server package).

    promcheck.py FILE                      check; exit 1 with every mistake
    promcheck.py FILE 'name{a="b",...}'... also print each series' value
                                           (labels in any order; "absent"
                                           when there is none)

What it holds a body to: UTF-8 text ending in a newline, no CR; every line
a comment (# HELP name text, # TYPE name type, or another # comment) or a
sample `name{label="value",...} value [timestamp]`; metric and label names
as the format allows (no label name starting with __); label values with
only \\\\, \\" and \\n escapes; values that parse as floats (NaN, +Inf,
-Inf); at most one HELP and one TYPE per name, TYPE before the name's
first sample, a known type; the samples of one family contiguous; no
series twice; counters never negative.
"""
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
TYPES = {'counter', 'gauge', 'histogram', 'summary', 'untyped'}
SUFFIXES = ('_bucket', '_sum', '_count')


def parse_value(s):
    if s in ('NaN', '+Inf', '-Inf', 'Inf'):
        return float(s.replace('Inf', 'inf'))
    if not re.fullmatch(r'[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?', s):
        raise ValueError(s)
    return float(s)


def parse_labels(line, i, errs, ln):
    """Labels from line[i] == '{'; returns (dict, index after '}')."""
    labels = {}
    i += 1
    while True:
        while i < len(line) and line[i] == ' ':
            i += 1
        if i < len(line) and line[i] == '}':
            return labels, i + 1
        m = LABEL.match(line, i)
        if not m:
            errs.append('%d: bad label name at column %d' % (ln, i + 1))
            return None, i
        name = m.group(0)
        if name.startswith('__'):
            errs.append('%d: reserved label name %s' % (ln, name))
        i = m.end()
        if line[i:i + 2] != '="':
            errs.append('%d: label %s: expected ="' % (ln, name))
            return None, i
        i += 2
        val = []
        while True:
            if i >= len(line):
                errs.append('%d: unterminated label value' % ln)
                return None, i
            c = line[i]
            if c == '\\':
                nxt = line[i + 1:i + 2]
                if nxt not in ('\\', '"', 'n'):
                    errs.append('%d: bad escape \\%s' % (ln, nxt))
                    return None, i
                val.append({'\\': '\\', '"': '"', 'n': '\n'}[nxt])
                i += 2
                continue
            if c == '"':
                i += 1
                break
            val.append(c)
            i += 1
        if name in labels:
            errs.append('%d: label %s twice' % (ln, name))
        labels[name] = ''.join(val)
        if i < len(line) and line[i] == ',':
            i += 1
            continue
        if i < len(line) and line[i] == '}':
            return labels, i + 1
        errs.append('%d: expected , or } after label %s' % (ln, name))
        return None, i


def family_of(name, types):
    for s in SUFFIXES:
        if name.endswith(s) and types.get(name[:-len(s)]) in (
                'histogram', 'summary'):
            return name[:-len(s)]
    return name


def check(text):
    errs = []
    series = {}
    if not text.endswith('\n'):
        errs.append('the body does not end with a newline')
    if '\r' in text:
        errs.append('carriage return in the body')
    helps, types, done, order = set(), {}, set(), []
    current = None
    for ln, line in enumerate(text.split('\n')[:-1], 1):
        if line == '':
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 2 and parts[1] in ('HELP', 'TYPE'):
                if len(parts) < 3 or not NAME.fullmatch(parts[2]):
                    errs.append('%d: %s without a valid name' % (ln, parts[1]))
                    continue
                name = parts[2]
                if parts[1] == 'HELP':
                    if name in helps:
                        errs.append('%d: second HELP for %s' % (ln, name))
                    helps.add(name)
                else:
                    t = parts[3] if len(parts) > 3 else ''
                    if t not in TYPES:
                        errs.append('%d: unknown type %r' % (ln, t))
                    if name in types:
                        errs.append('%d: second TYPE for %s' % (ln, name))
                    if name in done or name == current:
                        errs.append('%d: TYPE of %s after its samples'
                                    % (ln, name))
                    types[name] = t
            continue
        m = NAME.match(line)
        if not m:
            errs.append('%d: no metric name: %r' % (ln, line[:60]))
            continue
        name, i = m.group(0), m.end()
        labels = {}
        if i < len(line) and line[i] == '{':
            labels, i = parse_labels(line, i, errs, ln)
            if labels is None:
                continue
        rest = line[i:]
        if not rest.startswith(' '):
            errs.append('%d: no blank before the value' % ln)
            continue
        fields = rest.split()
        if len(fields) not in (1, 2) or rest != ' ' + ' '.join(fields):
            errs.append('%d: expected a value and an optional timestamp'
                        % ln)
            continue
        try:
            v = parse_value(fields[0])
        except ValueError:
            errs.append('%d: bad value %r' % (ln, fields[0]))
            continue
        if len(fields) == 2 and not re.fullmatch(r'-?\d+', fields[1]):
            errs.append('%d: bad timestamp %r' % (ln, fields[1]))
        fam = family_of(name, types)
        if fam != current:
            if fam in done:
                errs.append('%d: samples of %s not together' % (ln, fam))
            if current is not None:
                done.add(current)
            current = fam
            order.append(fam)
        if types.get(fam) == 'counter' and (v < 0 or math.isnan(v)):
            errs.append('%d: counter %s is %s' % (ln, name, fields[0]))
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            errs.append('%d: series %s%s twice' % (ln, name, labels))
        series[key] = v
    return errs, series


def lookup(series, want):
    m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?', want)
    name, labels = m.group(1), {}
    if m.group(3):
        for part in re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="([^"]*)"',
                               m.group(3)):
            labels[part[0]] = part[1]
    v = series.get((name, tuple(sorted(labels.items()))))
    return 'absent' if v is None else ('%d' % v if v == int(v) else repr(v))


def main():
    text = open(sys.argv[1], encoding='utf-8', newline='').read()
    errs, series = check(text)
    for e in errs:
        print('promcheck: %s: %s' % (sys.argv[1], e), file=sys.stderr)
    for want in sys.argv[2:]:
        print(lookup(series, want))
    return 1 if errs else 0


if __name__ == '__main__':
    sys.exit(main())
