#!/usr/bin/env python3
"""torchvision end to end: apistamp's events from real torchvision on real c10.

The loop the seed describes, on Debian's own packages (libtorch-dev 1.13.1,
python3-torch 1.13.1, python3-torchvision 0.14.1):

1. torchvision 0.14.1's C++ sources with every hand-placed call stripped;
   `apistamp fix` with rules/torchvision.yaml on the image library
   (csrc/io/image) and the nms and roi_align ops.
2. From that instrumented tree: the image extension, loaded by Debian's
   torchvision Python package in place of its own (a copy of the package on
   PYTHONPATH), and a small C++ program that calls vision::ops::nms and
   roi_align through torchvision's C++ front ends.
3. Workloads: the Python one (a model, a forward pass, PNG and JPEG encode
   and decode, torchvision.ops.nms, a transform) as two jobs of two ranks,
   under LD_PRELOAD of the c10 bridge; the C++ program; and a control
   without the bridge.
4. The logs hold, once per process, the C++ events on the routes taken
   (image functions from Python, the ops' front ends from C++ only: from
   Python, nms goes through the dispatcher straight to the kernel),
   torchvision's Python events and torch's own; the control none.
5. `apistamp report -p` over the logs: the reached events are used, by the
   right jobs and processes; the others never used; torchvision's Python
   events and torch's own are their layers' (rules/torchvision.yaml's
   `layers:`), and nothing is unknown; the HTML page shows it (chromium).

Each step is a JUnit test case; the test skips (with the reason) when the
source or a Debian package is missing.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

from realworld import Steps, sh
import torchvision_policy

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "report"))
import report_e2e  # noqa: E402 (chromium and PNG helpers)

PYTHON = "/usr/bin/python3"
DIST_PACKAGES = pathlib.Path("/usr/lib/python3/dist-packages")
IMAGE_SOURCES = [
    "torchvision/csrc/io/image/image.cpp",
    "torchvision/csrc/io/image/cpu/common_jpeg.cpp",
    "torchvision/csrc/io/image/cpu/decode_image.cpp",
    "torchvision/csrc/io/image/cpu/decode_jpeg.cpp",
    "torchvision/csrc/io/image/cpu/decode_png.cpp",
    "torchvision/csrc/io/image/cpu/encode_jpeg.cpp",
    "torchvision/csrc/io/image/cpu/encode_png.cpp",
    "torchvision/csrc/io/image/cpu/read_write_file.cpp",
    "torchvision/csrc/io/image/cuda/decode_jpeg_cuda.cpp",
]
OPS_SOURCES = [
    "torchvision/csrc/ops/nms.cpp",
    "torchvision/csrc/ops/cpu/nms_kernel.cpp",
    "torchvision/csrc/ops/roi_align.cpp",
    "torchvision/csrc/ops/cpu/roi_align_kernel.cpp",
]
# What the image extension is called in Debian's package.
IMAGE_EXTENSION = "image.cpython-311-x86_64-linux-gnu.so"
CXX_FLAGS = ["-std=c++17", "-O0", "-g0", "-fPIC", "-DJPEG_FOUND=1",
             "-DPNG_FOUND=1", "-DNVJPEG_FOUND=0", "-isystem",
             "/usr/include/torch/csrc/api/include"]
TORCH_LIBS = ["-ltorch", "-ltorch_cpu", "-lc10"]

OPS_PROGRAM = r'''
// Calls torchvision's C++ front ends, as a C++ user of the library would.
#include <torch/torch.h>
#include "torchvision/csrc/ops/nms.h"
#include "torchvision/csrc/ops/roi_align.h"
#include <iostream>

int main() {
  auto Boxes = torch::tensor({{0.f, 0.f, 10.f, 10.f}, {1.f, 1.f, 10.f, 10.f},
                              {20.f, 20.f, 30.f, 30.f}});
  auto Scores = torch::tensor({0.9f, 0.8f, 0.7f});
  auto Kept = vision::ops::nms(Boxes, Scores, 0.5);
  auto Input = torch::rand({1, 1, 8, 8});
  auto Rois = torch::tensor({{0.f, 0.f, 0.f, 4.f, 4.f}});
  auto Pooled = vision::ops::roi_align(Input, Rois, 1.0, 2, 2, 2, false);
  // Twice: each event once per process all the same.
  vision::ops::nms(Boxes, Scores, 0.5);
  std::cout << "kept " << Kept.size(0) << " pooled " << Pooled.numel() << "\n";
  return Kept.size(0) == 2 && Pooled.numel() == 4 ? 0 : 1;
}
'''

PYTHON_WORKLOAD = r'''
import io, sys, tempfile, os
import torch, torchvision
from torchvision.io import decode_png, encode_png, decode_jpeg, encode_jpeg, read_file
import torchvision.transforms as T

image_path = os.path.realpath(sys.modules["torchvision.io.image"].__file__)
image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
png = encode_png(image)
assert torch.equal(decode_png(png), image)
jpeg = encode_jpeg(image)
assert decode_jpeg(jpeg).shape == image.shape
with tempfile.NamedTemporaryFile(suffix=".png") as f:
    f.write(bytes(png.tolist()))
    f.flush()
    assert torch.equal(read_file(f.name), png)
model = torchvision.models.resnet18(weights=None).eval()
with torch.no_grad():
    out = model(torch.rand(1, 3, 32, 32))
assert out.shape == (1, 1000)
boxes = torch.tensor([[0., 0., 10., 10.], [1., 1., 10., 10.]])
assert torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8]), 0.5).tolist() == [0]
T.Resize(8)(image.float())
print("workload done")
'''


# What each route logs, once per process. From Python, the image functions
# are registered as torch.ops.image.* directly, so apistamp's C++ events fire;
# nms goes through the dispatcher to the kernel and never reaches the C++
# front end that carries torchvision.csrc.ops.nms.nms.
IMAGE_EVENTS = ["torchvision.csrc.io.image.cpu.%s" % e for e in (
    "decode_png.decode_png", "encode_png.encode_png", "decode_jpeg.decode_jpeg",
    "encode_jpeg.encode_jpeg", "read_write_file.read_file")]
TORCHVISION_PYTHON_EVENTS = [
    "torchvision.models.resnet.ResNet", "torchvision.ops.boxes.nms",
    "torchvision.io.image.decode_png", "torchvision.io.image.encode_jpeg",
    "torchvision.transforms.transforms.Resize"]
TORCH_EVENTS = ["tensor.create", "python.nn_module"]
PYTHON_EVENTS = IMAGE_EVENTS + TORCHVISION_PYTHON_EVENTS + TORCH_EVENTS
EXPECTED_ABSENT = ["torchvision.csrc.ops.nms.nms",
                   "torchvision.csrc.ops.roi_align.roi_align"]
CPP_EVENTS = EXPECTED_ABSENT + ["tensor.create"]
# The report: (jobs, processes) of each event the workloads reached.
REPORT_USED = dict([(e, (2, 4)) for e in IMAGE_EVENTS] +
                   [(e, (1, 1)) for e in EXPECTED_ABSENT])
REPORT_NEVER_USED = ["torchvision.csrc.io.image.cpu.read_write_file.write_file"]


# The other layers' events in the report: (jobs, processes). The C++
# program's job logs tensor.create too.
LAYER_EVENTS = {
    "torchvision-python": dict((e, (2, 4)) for e in TORCHVISION_PYTHON_EVENTS),
    "torch": {"tensor.create": (3, 5), "python.nn_module": (2, 4)},
}


def content_key(paths, flags):
    digest = hashlib.sha256()
    for path in paths:
        digest.update(pathlib.Path(path).read_bytes())
    digest.update("\0".join(flags).encode())
    return digest.hexdigest()[:16]


def compile_objects(src, sources, objects, jobs, directory=None):
    """Compiles sources (relative to directory, by default src, the
    instrumented tree, which is on the include path) into objects/, each at
    most once for the same bytes and flags; returns the object paths."""
    objects.mkdir(parents=True, exist_ok=True)
    flags = CXX_FLAGS + ["-I", str(src), "-I", str(src / "torchvision/csrc")]

    def one(relative):
        path = (directory or src) / relative
        obj = objects / ("%s-%s.o" % (path.stem, content_key([path], flags)))
        if not obj.exists():
            sh(["g++", *flags, "-c", str(path), "-o", str(obj) + ".tmp"])
            os.replace(str(obj) + ".tmp", obj)
        return obj

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, sources))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--apistamp", required=True)
    parser.add_argument("--rules", required=True)
    parser.add_argument("--bridge", required=True,
                        help="libapistamp_c10bridge.so")
    parser.add_argument("--source", default=torchvision_policy.DEFAULT_SOURCE)
    parser.add_argument("--work", required=True)
    parser.add_argument("--junit", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--screenshot", help="keep the report's screenshot here")
    args = parser.parse_args()
    for name in ("apistamp", "rules", "junit", "bridge"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    src, build, logs = work / "src", work / "build", work / "logs"
    steps = Steps("torchvision-e2e")
    state = {}
    names = ["instrument torchvision's image and ops sources",
             "build the image extension and the ops program",
             "Python and C++ workloads, with and without the bridge",
             "every route's events are in the logs, once per process",
             "apistamp report over the logs"]
    reason = None
    if not (source / "torchvision/csrc/vision.cpp").exists():
        reason = ("torchvision 0.14.1 source not found at %s; run "
                  "scripts/fetch-torchvision.sh" % source)
    elif subprocess.run([PYTHON, "-c", "import torch, torchvision"],
                        capture_output=True).returncode != 0:
        reason = "%s cannot import torch and torchvision (python3-torch, " \
                 "python3-torchvision)" % PYTHON
    elif not pathlib.Path(args.bridge).exists():
        reason = "the c10 bridge was not built (%s)" % args.bridge
    if reason:
        for name in names:
            steps.skip(name, reason)
        steps.write_junit(args.junit)
        return 0

    def instrument():
        for path in (src, build):
            shutil.rmtree(path, ignore_errors=True)
        torchvision_policy.strip_calls(source, src, build)
        # The project is what the workloads load: the image library and the
        # two ops (the CUDA stub is not analysable here).
        database = build / "compile_commands.json"
        wanted = {str(src / f) for f in IMAGE_SOURCES + OPS_SOURCES}
        database.write_text(json.dumps(
            [c for c in json.loads(database.read_text()) if c["file"] in wanted],
            indent=1))
        output = sh([args.apistamp, "fix", "--rules", args.rules, "--root",
                     str(src), "-j%d" % args.jobs, "-p", str(build)],
                    stderr_to_stdout=False)
        print("  " + output.strip().splitlines()[-1])

    def build_all():
        objects = work / "objects"
        image = compile_objects(src, IMAGE_SOURCES, objects, args.jobs)
        package = work / "pylib" / "torchvision"
        shutil.rmtree(package.parent, ignore_errors=True)
        shutil.copytree(DIST_PACKAGES / "torchvision", package, symlinks=True)
        sh(["g++", "-shared", "-o", str(package / IMAGE_EXTENSION),
            *map(str, image), *TORCH_LIBS, "-lpng", "-ljpeg"])
        (work / "ops_main.cpp").write_text(OPS_PROGRAM)
        ops = compile_objects(src, OPS_SOURCES, objects, args.jobs)
        main_obj = compile_objects(src, ["ops_main.cpp"], objects, 1, work)
        sh(["g++", "-o", str(work / "ops_program"), *map(str, ops + main_obj),
            *TORCH_LIBS])

    def run_workloads():
        shutil.rmtree(logs, ignore_errors=True)
        logs.mkdir()
        (work / "workload.py").write_text(PYTHON_WORKLOAD)
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("APISTAMP_", "PYTORCH_API_USAGE",
                                     "SLURM_", "RANK", "LOCAL_RANK"))}
        base["PYTHONPATH"] = str(work / "pylib")
        runs = []
        for job in ("4101", "4102"):
            for rank in ("0", "1"):
                env = dict(base, SLURM_JOB_ID=job, RANK=rank,
                           LD_PRELOAD=args.bridge,
                           APISTAMP_API_USAGE_LOG=str(
                               logs / ("python-%s-%s.jsonl" % (job, rank))))
                runs.append(([PYTHON, str(work / "workload.py")], env))
        runs.append(([str(work / "ops_program")],
                     dict(base, SLURM_JOB_ID="4103", RANK="0",
                          LD_PRELOAD=args.bridge,
                          APISTAMP_API_USAGE_LOG=str(logs / "cpp-4103-0.jsonl"))))
        control = logs / "control.jsonl"
        runs.append(([PYTHON, str(work / "workload.py")],
                     dict(base, APISTAMP_API_USAGE_LOG=str(control))))
        for command, env in runs:
            result = subprocess.run(command, env=env, capture_output=True,
                                    text=True, timeout=300)
            if result.returncode != 0:
                raise RuntimeError("%s failed (%d):\n%s" % (
                    " ".join(command), result.returncode, result.stderr[-3000:]))
        if control.exists():
            raise RuntimeError("the control run (no bridge) wrote %s" % control)

    def read_logs():
        """{log file name: [parsed lines]}."""
        return {path.name: [json.loads(line) for line in
                            path.read_text().splitlines() if line]
                for path in sorted(logs.glob("*.jsonl"))}

    def check_logs():
        found = read_logs()
        problems = []
        python_logs = [name for name in found if name.startswith("python-")]
        if len(python_logs) != 4 or "cpp-4103-0.jsonl" not in found:
            raise RuntimeError("expected 4 Python logs and the C++ one, got %s"
                               % sorted(found))
        for name, lines in sorted(found.items()):
            events = [line["event"] for line in lines]
            twice = sorted({e for e in events if events.count(e) > 1})
            if twice:
                problems.append("%s: logged more than once: %s" % (name, twice))
            pids = {line["pid"] for line in lines}
            if len(pids) != 1:
                problems.append("%s: %d processes" % (name, len(pids)))
            _, job, rank = name[:-len(".jsonl")].split("-")
            wrong = [line for line in lines if str(line.get("job_id")) != job
                     or str(line.get("rank")) != rank]
            if wrong:
                problems.append("%s: job or rank wrong in %s" % (name, wrong[0]))
            expected = PYTHON_EVENTS if name in python_logs else CPP_EVENTS
            absent = EXPECTED_ABSENT if name in python_logs else []
            missing = sorted(set(expected) - set(events))
            if missing:
                problems.append("%s: missing %s" % (name, missing))
            extra = sorted(set(absent) & set(events))
            if extra:
                problems.append("%s: %s cannot be on this route" % (name, extra))
            state.setdefault("counts", {})[name] = len(events)
        print("  events per process: %s" % state["counts"])
        if problems:
            raise RuntimeError("\n".join(problems))

    def report():
        common = ["--rules", args.rules, "--root", str(src), "-p", str(build)]
        text = sh([args.apistamp, "report", "--format=json", *common, str(logs)],
                  stderr_to_stdout=False)
        result = json.loads(text)
        status = {e["event"]: e for e in result["events"]}
        problems = []
        for event, (jobs, processes) in REPORT_USED.items():
            row = status.get(event)
            if not row or row["status"] != "used" or row.get("jobs") != jobs \
                    or row.get("processes") != processes:
                problems.append("%s: %s, expected used by %d jobs, %d processes"
                                % (event, row, jobs, processes))
        for event in REPORT_NEVER_USED:
            if status.get(event, {}).get("status") != "never-used":
                problems.append("%s: %s, expected never used"
                                % (event, status.get(event)))
        # The other layers' events (rules/torchvision.yaml's `layers:`) are
        # their own sections, with their counts; nothing is unknown.
        layers = {layer["layer"]: {e["event"]: e for e in layer["events"]}
                  for layer in result.get("layers", [])}
        for layer, events in LAYER_EVENTS.items():
            for event, (jobs, processes) in events.items():
                row = layers.get(layer, {}).get(event)
                if not row or row.get("jobs") != jobs \
                        or row.get("processes") != processes:
                    problems.append("%s: %s in layer %s, expected %d jobs, %d "
                                    "processes" % (event, row, layer, jobs,
                                                   processes))
        if result.get("unknown"):
            problems.append("unknown: %s" % [e["event"] for e in result["unknown"]])
        print("  " + ", ".join("%d %s" % (n, s) for s, n in sorted(
            collections.Counter(e["status"] for e in
                                              result["events"]).items())))
        page = work / "report.html"
        sh([args.apistamp, "report", "--format=html", "-o", str(page), *common,
            str(logs)])
        browser = report_e2e.chromium_command()
        if not browser:
            print("  chromium not found: the page is not looked at")
        else:
            shot = work / "report.png"
            shot.unlink(missing_ok=True)
            sh(browser + ["--screenshot=" + str(shot), "--window-size=1200,1600",
                          page.as_uri()], expect=None)
            if not shot.exists():
                raise RuntimeError("chromium wrote no screenshot")
            width, height, channels, rows = report_e2e.png_pixels(shot)
            white = sum(row.count(255) for row in rows[::8])
            total = sum(len(row) for row in rows[::8])
            if white > 0.98 * total:
                problems.append("the screenshot of the report is blank")
            dom = sh(browser + ["--dump-dom", page.as_uri()],
                     stderr_to_stdout=False)
            # Long names carry <wbr> break points: the text, without tags.
            dom = re.sub(r"<[^>]*>", "", dom)
            for event in list(REPORT_USED) + REPORT_NEVER_USED:
                if event not in dom:
                    problems.append("the page does not show %s" % event)
            if args.screenshot:
                shutil.copy(shot, args.screenshot)
        if problems:
            raise RuntimeError("\n".join(problems))

    steps.run(names[0], instrument)
    steps.run(names[1], build_all)
    steps.run(names[2], run_workloads)
    steps.run(names[3], check_logs)
    steps.run(names[4], report)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
