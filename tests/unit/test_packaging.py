"""The distribution lists every package, maps the top-level folders under `hallmon`, and the
repository holds no symlink (they break on Windows checkouts)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _setuptools() -> dict[str, object]:
    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    tool: dict[str, object] = data["tool"]["setuptools"]
    return tool


def test_every_package_is_listed() -> None:
    tool = _setuptools()
    package_dir: dict[str, str] = tool["package-dir"]  # type: ignore[assignment]
    found: set[str] = set()
    for name, folder in package_dir.items():
        root = REPO / folder
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root)
            found.add(".".join([name, *rel.parts]))
    listed = set(tool["packages"])  # type: ignore[call-overload]
    assert found - listed == set(), f"add these to [tool.setuptools] packages: {found - listed}"
    assert listed - found == set(), f"listed but not on disk: {listed - found}"


def test_top_level_folders_map_under_hallmon() -> None:
    package_dir = _setuptools()["package-dir"]
    assert package_dir == {
        "hallmon": "hallmon",
        "hallmon.schemas": "schemas",
        "hallmon.topology": "topology",
        "hallmon.workers": "workers",
        "hallmon.onnx_models": "onnx_models",
    }


def test_no_symlinks_in_the_repository() -> None:
    links = []
    for top, dirs, files in os.walk(REPO):
        dirs[:] = [d for d in dirs if d not in {".git", ".venv", "node_modules"}]
        links += [
            str(Path(top, n).relative_to(REPO)) for n in dirs + files if Path(top, n).is_symlink()
        ]
    # Ignored build folders (deploy/local/jars, state) may hold links of their own.
    links = [p for p in links if not p.startswith(("deploy/local/state", "deploy/local/jars"))]
    assert links == [], f"symlinks in the repository: {links}"


def test_verification_imports_no_transport() -> None:
    banned = ("import faust", "from faust", "confluent_kafka", "import redis", "from redis")
    offenders = [
        f"{path.relative_to(REPO)}: {word}"
        for path in (REPO / "hallmon" / "verification").rglob("*.py")
        for word in banned
        if word in path.read_text()
    ]
    assert offenders == []


def test_the_dashboard_files_ship_as_package_data() -> None:
    from fnmatch import fnmatch

    patterns: list[str] = _setuptools()["package-data"]["hallmon.serve"]  # type: ignore[index]
    static = REPO / "hallmon" / "serve" / "static"
    files = [p.relative_to(static.parent).as_posix() for p in static.iterdir() if p.is_file()]
    assert {"static/index.html", "static/app.js", "static/style.css"} <= set(files)
    unlisted = [f for f in files if not any(fnmatch(f, pat) for pat in patterns)]
    assert unlisted == [], f"add to [tool.setuptools.package-data] hallmon.serve: {unlisted}"
