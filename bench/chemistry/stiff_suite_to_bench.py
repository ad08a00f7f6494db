#!/usr/bin/env python3
"""The stiff suite's logs (check_stiff_problems_against_radau.py) as a bench result: per
problem, scaling and method, the worst deviation from SciPy's Radau relative to the reference
(above the comparison floor), or the refusal, for each backend whose log is given.

usage: stiff_suite_to_bench.py OUT_STEM DATE DEVICE COMMIT COMMAND LABEL=LOG [LABEL=LOG ...]
"""
import json
import re
import sys

LINE = re.compile(r"^(\S+) \(case (\d+)\) x(\S+) (\w+): (?:worst (\S+) relative \((\S+)\)|"
                  r"refused \(exit (\d+)\): (.*))$")


def read(path):
    rows = {}
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            file, case, scale, method, worst, species, code, message = m.groups()
            key = (int(case), file, scale, method)
            rows[key] = ({"worst_relative": float(worst), "species": species} if worst else
                         {"refused_exit": int(code), "message": message[:160]})
    return rows


def main():
    stem, date, device, commit, command = sys.argv[1:6]
    logs = dict(arg.split("=", 1) for arg in sys.argv[6:])
    runs = {label: read(path) for label, path in logs.items()}
    keys = sorted(set().union(*runs.values()))
    cases = []
    for case, file, scale, method in keys:
        entry = {"name": "stiff_problem_vs_radau", "problem": file, "case": case,
                 "scaling": float(scale), "method": method}
        for label, rows in runs.items():
            entry[label] = rows.get((case, file, scale, method))
        cases.append(entry)
    result = {"area": "chemistry", "device": device, "commit": commit, "command": command,
              "date": date, "agreement_required": 1e-6, "cases": cases}
    with open(stem + ".json", "w") as f:
        json.dump(result, f, indent=1)
    labels = list(runs)
    with open(stem + ".md", "w") as f:
        f.write(f"# chemistry: the stiff suite against SciPy's Radau, {date}\n\n")
        f.write(f"- device: {device}\n- commit: {commit}\n- command: `{command}`\n")
        f.write("- each cell: the worst deviation from Radau (rtol 1e-12; 1e-9 for POLLU in "
                "mol m-3), relative, above the floor; or the refusal's exit code. Required: "
                "<= 1e-6 or refused.\n\n")
        f.write("| problem | scaling | method | " + " | ".join(labels) + " |\n")
        f.write("|---|---:|---|" + "---:|" * len(labels) + "\n")
        for entry in cases:
            cells = []
            for label in labels:
                value = entry[label]
                cells.append("-" if value is None else
                             f"{value['worst_relative']:.1e}" if "worst_relative" in value else
                             f"refused (exit {value['refused_exit']})")
            f.write(f"| {entry['problem']} (case {entry['case']}) | {entry['scaling']:g} | "
                    f"{entry['method']} | " + " | ".join(cells) + " |\n")
    worst = {label: max((v["worst_relative"] for v in rows.values() if "worst_relative" in v),
                        default=None) for label, rows in runs.items()}
    refused = {label: sum("refused_exit" in v for v in rows.values())
               for label, rows in runs.items()}
    print("worst:", worst, "refused:", refused, "rows:", len(cases))


if __name__ == "__main__":
    main()
