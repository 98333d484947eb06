"""Build hook of the toolsift package (the project's metadata is in pyproject.toml).

Git holds one copy of the module (wasm/toolsearch.wasm) and of the DWS
snapshot (catalogs/dws/dws.snap). Building from a checkout (``pip install
./bindings/python``, ``pip wheel``, ``python -m build``) copies both into
src/toolsift/ (git-ignored) together with their hashes, and fails unless the
copies are the bytes wasm/artifacts.sha256 records (wasm/build.sh writes it).
Building from an sdist, which carries the copies and the hash list, checks
them the same way. So no wheel can hold a module or snapshot other than the
recorded one.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "src" / "toolsift"
REPO = HERE.parent.parent
MANIFEST = "wasm/artifacts.sha256"
#: Name inside the package -> path in the repository.
ARTIFACTS = {"toolsearch.wasm": "wasm/toolsearch.wasm", "dws.snap": "catalogs/dws/dws.snap"}
#: The hash list the package carries (names inside the package).
PACKAGED_MANIFEST = "artifacts.sha256"


class ArtifactError(RuntimeError):
    pass


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_manifest(path: Path) -> dict:
    """sha256sum's format: "<hex>  <path>" per line."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        digest, _, name = line.partition("  ")
        out[name.strip()] = digest.strip()
    return out


def _in_checkout(package: Path, repo: Path) -> bool:
    # The package must be the checkout's own bindings/python/src/toolsift: an
    # unpacked sdist sits anywhere, and a wasm/ three levels up means nothing.
    own = repo / "bindings" / "python" / "src" / "toolsift"
    return (repo / MANIFEST).is_file() and own.is_dir() and own.resolve() == package.resolve()


def stage_artifacts(package: Path = PACKAGE, repo: Path = REPO) -> None:
    """Copy the artifacts into the package (from a checkout) and check every
    packaged copy against the recorded SHA-256; raise ArtifactError if any
    differs or is missing."""
    if _in_checkout(package, repo):
        recorded = _read_manifest(repo / MANIFEST)
        lines = []
        for name, source in ARTIFACTS.items():
            want = recorded.get(source)
            if want is None:
                raise ArtifactError(f"{MANIFEST} has no line for {source}: run wasm/build.sh")
            got = _sha256(repo / source)
            if got != want:
                raise ArtifactError(
                    f"{source} has SHA-256 {got}, but {MANIFEST} records {want}: "
                    "run wasm/build.sh (it records the hashes of the module and the DWS snapshot)"
                )
            dest = package / name
            if not dest.is_file() or _sha256(dest) != want:
                shutil.copyfile(repo / source, dest)
            lines.append(f"{want}  {name}\n")
        (package / PACKAGED_MANIFEST).write_text("".join(lines), encoding="utf-8")
    manifest = package / PACKAGED_MANIFEST
    if not manifest.is_file():
        raise ArtifactError(
            f"{manifest} is missing: build toolsift from a checkout of the repository "
            "(pip install ./bindings/python) or from its sdist"
        )
    recorded = _read_manifest(manifest)
    for name in ARTIFACTS:
        path = package / name
        if not path.is_file():
            raise ArtifactError(f"{path} is missing: build toolsift from a checkout of the repository or from its sdist")
        got = _sha256(path)
        if got != recorded.get(name):
            raise ArtifactError(f"{path} has SHA-256 {got}, but the package records {recorded.get(name)}: it is not the committed file")


class BuildPy(build_py):
    def run(self) -> None:
        stage_artifacts()
        super().run()


class Sdist(sdist):
    def run(self) -> None:
        stage_artifacts()
        super().run()


# setuptools runs this file as __main__; the package's tests import it for
# stage_artifacts.
if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
