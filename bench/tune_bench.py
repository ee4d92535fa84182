#!/usr/bin/env python3
"""Tuning results: dlas-tune on whole models, full search and transfer.

For each model (torchvision, exported to ONNX as the model tests do):
  1. full tuning: `dlas-tune --db <model>.db.json` over the whole candidate
     space (within --budget), timing the search;
  2. transfer-tuning: a fresh database, candidates from the union of the
     OTHER models' full-tuning databases (`--transfer-from`), timing it;
  3. the model's median time with the cost model's parameters, with the full
     tuning file and with the transferred one, measured back to back by
     dlas-run (best of --rounds).
Writes bench/results/<tag>-tuning.md and .csv: speedup over the default,
transfer's share of full tuning's speedup and its share of the search time.

    /usr/bin/python3 bench/tune_bench.py --models resnet18,resnet50,mobilenet_v2,googlenet
"""
import argparse
import csv
import datetime
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "test", "Models", "Inputs"))


def run(args, **kw):
    proc = subprocess.run(args, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        sys.exit(f"failed: {' '.join(args)}\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout


def tune(args, onnx, db, out, transfer=None):
    cmd = [args.dlas_tune, onnx, "--db", db, "-o", out, "--budget", args.budget,
           "--target", args.target, "--num-threads", str(args.threads),
           "--repeat", str(args.tune_repeat), "--no-verify"]
    if transfer:
        cmd += ["--transfer-from", transfer]
    start = time.time()
    text = run(cmd)
    seconds = time.time() - start
    rounds = len(re.findall(r"round \d+:", text))
    return seconds, rounds, text


def model_ms(args, onnx, tuning=None):
    cmd = [args.dlas_run, onnx, "--random-inputs", "--warmup", "3", "--repeat",
           str(args.repeat), "--num-threads", str(args.threads), "--target", args.target]
    if tuning:
        cmd += ["--tuning-file", tuning]
    return float(re.search(r"median ([0-9.]+) ms", run(cmd)).group(1))


def merge_dbs(paths, out):
    kernels = []
    for p in paths:
        with open(p) as f:
            kernels += json.load(f)["kernels"]
    seen, merged = set(), []
    for k in kernels:
        ident = (k["target"], k["section"], k["key"])
        if ident not in seen:
            seen.add(ident)
            merged.append(k)
    with open(out, "w") as f:
        json.dump({"dlas_tuning_db": 1, "kernels": merged}, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="resnet18,resnet50,mobilenet_v2,googlenet")
    parser.add_argument("--budget", default="10m", help="dlas-tune --budget per search")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per model time")
    parser.add_argument("--tune-repeat", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reuse-full", action="store_true",
                        help="keep the full-tuning databases, files and search times "
                        "of an earlier run in --workdir (re-run transfer and timing only)")
    parser.add_argument("--target", default="host")
    parser.add_argument("--dlas-run", default="build/bin/dlas-run")
    parser.add_argument("--dlas-tune", default="build/bin/dlas-tune")
    parser.add_argument("--workdir", default="build/bench/tuning")
    parser.add_argument("--out", default=os.path.join(HERE, "results"))
    parser.add_argument("--tag", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    from models import export
    os.makedirs(args.workdir, exist_ok=True)
    models = args.models.split(",")
    onnx = {}
    for name in models:
        path = os.path.join(args.workdir, name, name + ".onnx")
        if not os.path.exists(path):
            export(name, args.workdir)
        onnx[name] = path
    full = {}
    for name in models:
        db = os.path.join(args.workdir, f"{name}.db.json")
        out = os.path.join(args.workdir, f"{name}.tuned.json")
        record = os.path.join(args.workdir, f"{name}.full.json")
        if args.reuse_full and os.path.exists(record):
            with open(record) as f:
                seconds, rounds = json.load(f)
            print(f"{name}: full tuning of an earlier run, {seconds:.0f} s", flush=True)
        else:
            if os.path.exists(db):
                os.remove(db)
            seconds, rounds, text = tune(args, onnx[name], db, out)
            with open(record, "w") as f:
                json.dump([seconds, rounds], f)
            print(f"{name}: full tuning {seconds:.0f} s, {rounds} rounds", flush=True)
        full[name] = (seconds, rounds, db, out)
    rows = []
    for name in models:
        others = os.path.join(args.workdir, f"{name}.others.db.json")
        merge_dbs([full[m][2] for m in models if m != name], others)
        db = os.path.join(args.workdir, f"{name}.transfer.db.json")
        if os.path.exists(db):
            os.remove(db)
        out = os.path.join(args.workdir, f"{name}.transfer.json")
        t_seconds, t_rounds, _ = tune(args, onnx[name], db, out, transfer=others)
        default = tuned = transferred = float("inf")
        for _ in range(args.rounds):
            default = min(default, model_ms(args, onnx[name]))
            tuned = min(tuned, model_ms(args, onnx[name], full[name][3]))
            transferred = min(transferred, model_ms(args, onnx[name], out))
        f_seconds, f_rounds = full[name][0], full[name][1]
        full_gain, transfer_gain = default / tuned - 1, default / transferred - 1
        row = {"model": name, "threads": args.threads, "default_ms": default,
               "full_ms": tuned, "full_speedup": default / tuned,
               "full_search_s": f_seconds, "full_rounds": f_rounds,
               "transfer_ms": transferred, "transfer_speedup": default / transferred,
               "transfer_search_s": t_seconds, "transfer_rounds": t_rounds,
               "transfer_share_of_gain": transfer_gain / full_gain if full_gain > 0 else None,
               "transfer_share_of_time": t_seconds / f_seconds}
        rows.append(row)
        print(row, flush=True)
    host = run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"]).strip()
    base = os.path.join(args.out, f"{args.tag}-tuning")
    with open(base + ".csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(base + ".md", "w") as f:
        f.write(f"# dlas-tune {args.tag}\n\n`bench/tune_bench.py --models {args.models} "
                f"--budget {args.budget} --target {args.target} --threads {args.threads}`\n\n"
                f"- host: {host}\n- target: {args.target}; {args.threads} thread(s)\n"
                "- full: the whole candidate space of every kernel (within the budget); "
                "transfer: a fresh database, candidates from the other models' full-tuning "
                "databases only.\n- search s: dlas-tune's wall time (each candidate "
                "compiled and timed on its layer alone, confirmation included, the "
                "final whole-model check not).\n- model times: dlas-run medians, best of "
                f"{args.rounds} back-to-back rounds.\n\n")
        f.write("| model | default ms | full-tuned ms | speedup | search s (rounds) | "
                "transfer ms | speedup | search s (rounds) | share of full's gain | "
                "share of full's time |\n|---|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            share = ("-" if r["transfer_share_of_gain"] is None
                     else f"{100 * r['transfer_share_of_gain']:.0f}%")
            f.write(f"| {r['model']} | {r['default_ms']:.2f} | {r['full_ms']:.2f} | "
                    f"{r['full_speedup']:.3f}x | {r['full_search_s']:.0f} ({r['full_rounds']}) | "
                    f"{r['transfer_ms']:.2f} | {r['transfer_speedup']:.3f}x | "
                    f"{r['transfer_search_s']:.0f} ({r['transfer_rounds']}) | {share} | "
                    f"{100 * r['transfer_share_of_time']:.0f}% |\n")
    print(f"wrote {base}.md, .csv")


if __name__ == "__main__":
    main()
