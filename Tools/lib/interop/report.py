"""The interop table: a row a check, and the verdict of each."""
import tables

HEADERS = ["check", "peer", "codec", "policy", "sent", "decoded", "size", "first frame", "recovery", "result"]


def cell(value, unit=""):
    if value is None or value == "":
        return "-"
    if isinstance(value, float):
        return "%.1f%s" % (value, unit)
    return "%s%s" % (value, unit)


def result(row):
    return "pass" if not row["failures"] else "FAIL"


def table(rows):
    return tables.plain(HEADERS, [[r["check"], r["peer"], r["codec"], r["policy"], cell(r["sent"]), cell(r["decoded"]),
                                   r["size"] or "-", cell(r["first"], " s"), cell(r["recovery"], " s"), result(r)]
                                  for r in rows])
