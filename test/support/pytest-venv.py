# Makes a virtual environment holding pytest and what it requires, and nothing else, at argv[1]
# (ADR 0077): the suite's pytest runs start in it, not among every plugin this machine's Python has
# installed. The packages are links to the running interpreter's own copies: nothing is downloaded.
# Prints the environment's bin folder.
import importlib.metadata as metadata
import os
import re
import sys
import venv

from packaging.requirements import Requirement

target = os.path.abspath(sys.argv[1])
venv.EnvBuilder(with_pip=False, symlinks=True).create(target)
site = os.path.join(target, "lib", f"python{sys.version_info[0]}.{sys.version_info[1]}", "site-packages")
bin_dir = os.path.join(target, "bin")

seen = set()
todo = ["pytest"]
while todo:
    name = todo.pop()
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        continue
    seen.add(key)
    dist = metadata.distribution(name)
    for line in dist.requires or []:
        requirement = Requirement(line)
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            todo.append(requirement.name)
    # The distribution's top-level entries (packages, modules, its dist-info); its console scripts
    # ("../../../bin/...") are not linked: the bin folder gets its own pytest below.
    tops = {str(f).split("/")[0] for f in dist.files or []} - {"..", "__pycache__"}
    for top in sorted(tops):
        source = os.path.join(str(dist.locate_file("")), top)
        if os.path.exists(source):
            os.symlink(source, os.path.join(site, top))

# A `pytest` command for seams that name it, run by this environment's interpreter.
script = os.path.join(bin_dir, "pytest")
with open(script, "w") as f:
    f.write(f"#!{os.path.join(bin_dir, 'python3')}\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n")
os.chmod(script, 0o755)
print(bin_dir)
