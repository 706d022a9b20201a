#!/usr/bin/env python3
"""torchvision end to end: apistamp's events from real torchvision on real c10.

The loop the seed describes, on Debian's own packages (libtorch-dev 1.13.1,
python3-torch 1.13.1, python3-torchvision 0.14.1), for both languages:

1. torchvision 0.14.1's sources with every hand-placed call stripped, C++
   and Python; one `apistamp fix` with rules/torchvision.yaml over the
   whole project: the image library (csrc/io/image) and the nms and
   roi_align ops of the compile database, and the Python package.
2. From that instrumented tree: the image extension, and the fixed Python
   package over Debian's compiled extensions (a copy on PYTHONPATH); a
   small C++ program that calls vision::ops::nms and roi_align through
   torchvision's C++ front ends.
3. Jobs under LD_PRELOAD of the c10 bridge, with PYTORCH_API_USAGE_STDERR=1:
   a training step of resnet18(weights=None) with v1 transforms and a
   DataLoader of 2 workers over datasets.FakeData; an io job (read_image,
   decode_jpeg, encode_png on files it writes); a job of two ranks; the C++
   program; and a control without the bridge.
4. The logs hold each event once per process, and per run exactly the
   torchvision names c10 printed on its stderr; the control none.
5. `apistamp report -p` (the whole project: C++ and Python): ResNet, FakeData
   (through VisionDataset) and each transform used by the right jobs, the
   two-rank job counted once, VGG and MNIST never used, nothing of
   torchvision's unknown or another layer's, and the used torchvision
   events exactly the names c10 printed; the HTML page shows it (chromium).
6. The saved catalog of 0.14.1's Python package (fixtures/): `catalog
   --diff` against it is empty; renaming resnet.ResNet to ResidualNet stops
   `check --usage` until an alias maps it.

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
import torchvision_python_truth as truth

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

TRAIN_WORKLOAD = r'''
# One training step: resnet18, v1 transforms, a DataLoader of 2 workers.
import torch, torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torchvision.datasets import FakeData

transform = T.Compose([T.RandomResizedCrop(32), T.RandomHorizontalFlip(),
                       T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.25, 0.25, 0.25))])
data = FakeData(size=8, image_size=(3, 40, 40), num_classes=10, transform=transform)
loader = DataLoader(data, batch_size=4, num_workers=2)
model = torchvision.models.resnet18(weights=None, num_classes=10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
model.train()
for images, labels in loader:
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    optimizer.step()
print("trained", float(loss))
'''

IO_WORKLOAD = r'''
# read_image, decode_jpeg and encode_png on files the job writes itself.
import os, sys, tempfile
import torch
from PIL import Image
from torchvision.io import decode_jpeg, encode_png, read_file, read_image

image = torch.randint(0, 256, (3, 16, 16), dtype=torch.uint8)
with tempfile.TemporaryDirectory() as d:
    jpg, png = os.path.join(d, "a.jpg"), os.path.join(d, "a.png")
    Image.fromarray(image.permute(1, 2, 0).numpy()).save(jpg)
    with open(png, "wb") as f:
        f.write(bytes(encode_png(image).tolist()))
    assert torch.equal(read_image(png), image)
    assert decode_jpeg(read_file(jpg)).shape == image.shape
print("io done")
'''

RANK_WORKLOAD = r'''
# One rank of a job of two: an op and two transforms.
import torch, torchvision
import torchvision.transforms as T

boxes = torch.tensor([[0., 0., 10., 10.], [1., 1., 10., 10.]])
assert torchvision.ops.nms(boxes, torch.tensor([0.9, 0.8]), 0.5).tolist() == [0]
T.CenterCrop(8)(T.Resize(12)(torch.rand(3, 16, 16)))
print("rank done")
'''

# The runs: (log name, job, rank, workload file or None for the C++
# program). Each run's processes (the training job's DataLoader workers
# too) write its log.
RUNS = [("train", "4101", "0", "train.py"), ("io", "4102", "0", "io.py"),
        ("ranks", "4103", "0", "rank.py"), ("ranks", "4103", "1", "rank.py"),
        ("cpp", "4104", "0", None)]

# What the report must say of them: (jobs, processes) of used events.
REPORT_USED = {
    "torchvision.models.resnet.ResNet": (1, 1),
    "torchvision.datasets.fakedata.FakeData": (1, 1),
    "torchvision.transforms.transforms.Compose": (1, 1),
    "torchvision.transforms.transforms.RandomResizedCrop": (1, 1),
    "torchvision.transforms.transforms.RandomHorizontalFlip": (1, 1),
    "torchvision.transforms.transforms.ToTensor": (1, 1),
    "torchvision.transforms.transforms.Normalize": (1, 1),
    # FakeData makes a ToPILImage in each DataLoader worker.
    "torchvision.transforms.transforms.ToPILImage": (1, 2),
    "torchvision.transforms.functional.resized_crop": (1, 2),
    # The job of two ranks, counted once.
    "torchvision.transforms.transforms.CenterCrop": (1, 2),
    "torchvision.transforms.transforms.Resize": (1, 2),
    "torchvision.ops.boxes.nms": (1, 2),
    "torchvision.io.image.read_image": (1, 1),
    "torchvision.io.image.decode_jpeg": (1, 1),
    "torchvision.io.image.encode_png": (1, 1),
    # C++: the image functions from Python (read_image decodes through
    # decode_image, which calls decode_png), the ops' front ends from the
    # C++ program only: from Python, nms goes through the dispatcher
    # straight to the kernel.
    "torchvision.csrc.io.image.cpu.read_write_file.read_file": (1, 1),
    "torchvision.csrc.io.image.cpu.decode_png.decode_png": (1, 1),
    "torchvision.csrc.io.image.cpu.decode_jpeg.decode_jpeg": (1, 1),
    "torchvision.csrc.io.image.cpu.encode_png.encode_png": (1, 1),
    "torchvision.csrc.ops.nms.nms": (1, 1),
    "torchvision.csrc.ops.roi_align.roi_align": (1, 1),
}
THROUGH = {"torchvision.datasets.fakedata.FakeData":
           "torchvision.datasets.vision.VisionDataset"}
REPORT_NEVER_USED = ["torchvision.models.vgg.VGG",
                     "torchvision.datasets.mnist.MNIST",
                     "torchvision.csrc.io.image.cpu.encode_jpeg.encode_jpeg",
                     "torchvision.csrc.io.image.cpu.read_write_file.write_file"]
# torch's own events: its layer's, not torchvision's.
TORCH_EVENTS = {"torch.python.import", "tensor.create", "python.nn_module"}
CATALOG_FIXTURE = pathlib.Path(__file__).resolve().parent / "fixtures" / \
    "torchvision-0.14.1-python.catalog.json"
EVENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")


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


def stderr_names(text):
    """The distinct torchvision events c10 printed in text. c10 writes
    "PYTORCH_API_USAGE " and the name in two writes, so the DataLoader's
    workers, printing at once, interleave them ("PYTORCH_API_USAGE
    PYTORCH_API_USAGE a" then "b" on a line of its own): a line is c10's if
    every word of it is that prefix or an event name, and it has a name."""
    names = set()
    for line in text.splitlines():
        # Glued writes too: "PYTORCH_API_USAGEPYTORCH_API_USAGE a",
        # "...ToPILImagetorchvision.transforms.functional.to_pil_image".
        prefixed = "PYTORCH_API_USAGE" in line
        events = []
        for word in line.replace("PYTORCH_API_USAGE", " ").split():
            events += re.split(r"(?<=.)(?=torchvision\.)", word)
        if events and all(EVENT_NAME.match(w) for w in events) and \
                (prefixed or len(events) == 1):
            names.update(e for e in events if e.startswith("torchvision."))
    return names


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
    parser.add_argument("--write-fixture", action="store_true",
                        help="write the saved catalog of the Python package")
    args = parser.parse_args()
    for name in ("apistamp", "rules", "junit", "bridge"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    work = pathlib.Path(args.work).resolve()
    source = pathlib.Path(args.source)
    src, build, logs = work / "src", work / "build", work / "logs"
    # The result cache (build/.apistamp-cache) the fix fills serves the
    # report's catalog and the gate's checks.
    common = ["--rules", args.rules, "--root", str(src), "-p", str(build)]
    steps = Steps("torchvision-e2e")
    state = {}
    names = ["instrument torchvision's C++ image and ops sources and its "
             "Python package",
             "build the image extension, the Python package and the ops program",
             "training, io, two-rank and C++ jobs, with and without the bridge",
             "every run's log holds what c10 printed, once per process",
             "apistamp report over the logs, both languages",
             "the saved catalog, a rename and the usage gate"]
    reason = None
    if not (source / "torchvision/csrc/vision.cpp").exists():
        reason = ("torchvision 0.14.1 source not found at %s; run "
                  "scripts/fetch-torchvision.sh" % source)
    elif subprocess.run([PYTHON, "-c", "import torch, torchvision, PIL"],
                        capture_output=True).returncode != 0:
        reason = "%s cannot import torch, torchvision and PIL (python3-torch, " \
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
        sites = truth.strip_tree(source, src)
        print("  stripped: %d Python calls" % len(sites))
        # The C++ project is what the workloads load: the image library and
        # the two ops (the CUDA stub is not analysable here).
        database = build / "compile_commands.json"
        wanted = {str(src / f) for f in IMAGE_SOURCES + OPS_SOURCES}
        database.write_text(json.dumps(
            [c for c in json.loads(database.read_text()) if c["file"] in wanted],
            indent=1))
        # One fix of the whole project: the database's C++ and the Python
        # package the rules' Python rules name.
        output = sh([args.apistamp, "fix", *common, "-j%d" % args.jobs],
                    stderr_to_stdout=False)
        print("  " + output.strip().splitlines()[-1])
        inserted = re.search(r"inserted (\d+)", output)
        if not inserted or int(inserted.group(1)) < len(sites):
            raise RuntimeError("fix inserted fewer calls than the %d stripped "
                               "Python ones:\n%s" % (len(sites), output[-2000:]))

    def build_all():
        objects = work / "objects"
        image = compile_objects(src, IMAGE_SOURCES, objects, args.jobs)
        package = work / "pylib" / "torchvision"
        shutil.rmtree(package.parent, ignore_errors=True)
        # Debian's package (its compiled extensions, version.py), with every
        # module of the fixed tree over it, and the instrumented image
        # extension.
        shutil.copytree(DIST_PACKAGES / "torchvision", package, symlinks=True)
        for path in (src / "torchvision").rglob("*.py"):
            target = package / path.relative_to(src / "torchvision")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, target)
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
        for name, text in (("train.py", TRAIN_WORKLOAD), ("io.py", IO_WORKLOAD),
                           ("rank.py", RANK_WORKLOAD)):
            (work / name).write_text(text)
        base = {k: v for k, v in os.environ.items()
                if not k.startswith(("APISTAMP_", "PYTORCH_API_USAGE",
                                     "SLURM_", "RANK", "LOCAL_RANK",
                                     "TORCHELASTIC_"))}
        base["PYTHONPATH"] = str(work / "pylib")
        base["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        state["stderr"] = {}
        for name, job, rank, script in RUNS:
            log = logs / ("%s-%s-%s.jsonl" % (name, job, rank))
            env = dict(base, SLURM_JOB_ID=job, RANK=rank, LD_PRELOAD=args.bridge,
                       PYTORCH_API_USAGE_STDERR="1",
                       APISTAMP_API_USAGE_LOG=str(log))
            command = [PYTHON, str(work / script)] if script else \
                [str(work / "ops_program")]
            result = subprocess.run(command, env=env, capture_output=True,
                                    text=True, timeout=300)
            if result.returncode != 0:
                raise RuntimeError("%s failed (%d):\n%s" % (
                    " ".join(command), result.returncode, result.stderr[-3000:]))
            if script and "/pylib/torchvision" not in \
                    subprocess.run([PYTHON, "-c", "import torchvision; "
                                    "print(torchvision.__file__)"], env=base,
                                   capture_output=True, text=True).stdout:
                raise RuntimeError("torchvision is not the fixed copy")
            state["stderr"][log.name] = result.stderr
        control = logs / "control.jsonl"
        subprocess.run([PYTHON, str(work / "io.py")], check=True, timeout=300,
                       env=dict(base, APISTAMP_API_USAGE_LOG=str(control)),
                       capture_output=True)
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
        expected = {"%s-%s-%s.jsonl" % run[:3] for run in RUNS}
        if set(found) != expected:
            raise RuntimeError("expected the logs %s, got %s"
                               % (sorted(expected), sorted(found)))
        for name, lines in sorted(found.items()):
            by_pid = collections.defaultdict(list)
            for line in lines:
                by_pid[line["pid"]].append(line["event"])
            for pid, events in by_pid.items():
                twice = sorted({e for e in events if events.count(e) > 1})
                if twice:
                    problems.append("%s: pid %s logged more than once: %s"
                                    % (name, pid, twice))
            _, job, rank = name[:-len(".jsonl")].split("-")
            wrong = [line for line in lines if str(line.get("job_id")) != job
                     or str(line.get("rank")) != rank]
            if wrong:
                problems.append("%s: job or rank wrong in %s" % (name, wrong[0]))
            # Exactness: the torchvision names of the run's log are the ones
            # c10 printed on its stderr (its processes' together).
            logged = {line["event"] for line in lines
                      if line["event"].startswith("torchvision.")}
            printed = stderr_names(state["stderr"][name])
            if logged != printed:
                problems.append("%s: logged but not printed %s; printed but "
                                "not logged %s" % (name, sorted(logged - printed),
                                                   sorted(printed - logged)))
            state.setdefault("processes", {})[name] = len(by_pid)
        if state["processes"]["train-4101-0.jsonl"] != 3:
            problems.append("the training job: %d processes, expected 3 (the "
                            "DataLoader's 2 workers)"
                            % state["processes"]["train-4101-0.jsonl"])
        print("  processes per log: %s" % state["processes"])
        if problems:
            raise RuntimeError("\n".join(problems))

    def report():
        text = sh([args.apistamp, "report", "--format=json", *common, str(logs)],
                  stderr_to_stdout=False)
        (work / "usage.json").write_text(text)
        result = json.loads(text)
        status = {e["event"]: e for e in result["events"]}
        problems = []
        for event, (jobs, processes) in REPORT_USED.items():
            row = status.get(event)
            if not row or row["status"] != "used" or row.get("jobs") != jobs \
                    or row.get("processes") != processes:
                problems.append("%s: %s, expected used by %d jobs, %d processes"
                                % (event, row, jobs, processes))
        for event, base in THROUGH.items():
            if status.get(event, {}).get("through") != base:
                problems.append("%s: not reached through %s" % (event, base))
        for event in REPORT_NEVER_USED:
            if status.get(event, {}).get("status") != "never-used":
                problems.append("%s: %s, expected never used"
                                % (event, status.get(event)))
        # Nothing of torchvision's is another layer's or unknown; torch's
        # own events are its layer's.
        unplaced = [e["event"] for group in result.get("layers", []) +
                    result.get("other_libraries", []) for e in group["events"]]
        unplaced += [e["event"] for e in result.get("unknown", [])]
        strays = [e for e in unplaced if e.startswith("torchvision.")]
        if strays:
            problems.append("torchvision events the catalog does not place: %s"
                            % strays)
        torch_layer = {e["event"] for layer in result.get("layers", [])
                       if layer["layer"] == "torch" for e in layer["events"]}
        if not TORCH_EVENTS <= torch_layer:
            problems.append("torch's layer lacks %s" % sorted(TORCH_EVENTS - torch_layer))
        # Exactness: the used torchvision events are the names c10 printed.
        used = {e for e, row in status.items() if row["status"] == "used"}
        printed = set().union(*map(stderr_names, state["stderr"].values()))
        if used != printed:
            problems.append("used but not printed %s; printed but not used %s"
                            % (sorted(used - printed), sorted(printed - used)))
        languages = {l["language"]: (l["used"], l["events"])
                     for l in result.get("languages", [])}
        print("  %d used of %d events; by language %s; %d names printed by c10"
              % (len(used), len(status), languages, len(printed)))
        if set(languages) != {"c++", "python"}:
            problems.append("languages: %s" % languages)
        modules = sh([args.apistamp, "report", "--by=module", *common, str(logs)],
                     stderr_to_stdout=False)
        transforms = re.search(r"^torchvision\.transforms\s+(\d+)\s+(\d+)", modules,
                               re.M)
        if not transforms:
            problems.append("--by=module has no torchvision.transforms row:\n"
                            + modules)
        else:
            print("  --by=module: torchvision.transforms: %s of %s used"
                  % (transforms.group(2), transforms.group(1)))
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
            for event in list(REPORT_USED) + REPORT_NEVER_USED + \
                    ["python events used", "c++ events used",
                     "Coverage by module"]:
                if event not in dom:
                    problems.append("the page does not show %s" % event)
            if args.screenshot:
                shutil.copy(shot, args.screenshot)
        if problems:
            raise RuntimeError("\n".join(problems))

    def catalog_and_gate():
        # The saved catalog of 0.14.1's Python package, as released (its
        # own calls), every row with those reached through a base.
        pristine = ["--rules", args.rules, "--root", str(source), "--no-cache",
                    str(source / "torchvision")]
        if args.write_fixture:
            CATALOG_FIXTURE.parent.mkdir(exist_ok=True)
            CATALOG_FIXTURE.write_text(sh(
                [args.apistamp, "catalog", "--format=json", *pristine],
                stderr_to_stdout=False))
        fixture = json.loads(CATALOG_FIXTURE.read_text())
        through = [e for e in fixture if "through" in e]
        print("  fixture: %d events, %d reached through a base"
              % (len(fixture), len(through)))
        problems = []
        same = sh([args.apistamp, "catalog", "--diff", str(CATALOG_FIXTURE),
                   *pristine], stderr_to_stdout=False)
        if not re.search(r"catalog diff: 0 renamed .*, 0 removed, 0 added", same):
            problems.append("catalog --diff of the fixture against the same "
                            "package is not empty:\n" + same[-2000:])
        # The gate on the fixed tree and the jobs' usage: green; renaming
        # the class a job used stops it until an alias maps the old name.
        # The rules without the video rules: this database has no video
        # source, and a rule that selects nothing fails check.
        rules = pathlib.Path(args.rules).read_text()
        start = rules.index("  # torchvision.io's video_reader functions")
        end = rules.index("  # ---- The Python side")
        gated = work / "rules-gate.yaml"
        gated.write_text(rules[:start] + rules[end:])
        gate = [args.apistamp, "check", "--rules", str(gated), *common[2:],
                "--usage", str(work / "usage.json")]
        done = subprocess.run(gate, capture_output=True, text=True)
        if done.returncode != 0:
            problems.append("check --usage on the fixed tree exited %d:\n%s"
                            % (done.returncode, done.stdout[-2000:]))
        renamed = []
        for path in (src / "torchvision/models").rglob("*.py"):
            text = path.read_text()
            new = re.sub(r"\bResNet\b", "ResidualNet", text)
            if new != text:
                renamed.append((path, text))
                path.write_text(new)
        try:
            done = subprocess.run(gate, capture_output=True, text=True)
            if done.returncode != 1 or "removes API usage event " \
                    "'torchvision.models.resnet.ResNet' used by 1 job" not in done.stdout:
                problems.append("the rename did not stop the gate (%d):\n%s"
                                % (done.returncode, done.stdout[-2000:]))
            diff = sh([args.apistamp, "catalog", "--diff", str(CATALOG_FIXTURE),
                       "--rules", args.rules, "--root", str(src), "--no-cache",
                       str(src / "torchvision")], stderr_to_stdout=False)
            if "torchvision.models.resnet.ResidualNet" not in diff:
                problems.append("catalog --diff does not show the rename:\n"
                                + diff[-2000:])
            aliased = work / "rules-with-alias.yaml"
            aliased.write_text(gated.read_text() +
                               "aliases:\n  torchvision.models.resnet.ResNet: "
                               "torchvision.models.resnet.ResidualNet\n")
            done = subprocess.run(
                [args.apistamp, "check", "--rules", str(aliased),
                 *common[2:], "--usage", str(work / "usage.json")],
                capture_output=True, text=True)
            if done.returncode != 0:
                problems.append("with the alias, check --usage exited %d:\n%s"
                                % (done.returncode, done.stdout[-2000:]))
            print("  renamed in %d files; the gate stops it, the alias lets it "
                  "through" % len(renamed))
        finally:
            for path, text in renamed:
                path.write_text(text)
        if problems:
            raise RuntimeError("\n".join(problems))

    steps.run(names[0], instrument)
    steps.run(names[1], build_all)
    steps.run(names[2], run_workloads)
    steps.run(names[3], check_logs)
    steps.run(names[4], report)
    steps.run(names[5], catalog_and_gate)
    return steps.finish(args.junit)


if __name__ == "__main__":
    sys.exit(main())
