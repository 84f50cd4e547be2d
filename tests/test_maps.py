"""Error maps (PNG) and the HTML report: sane images for every rank, tile lines, re-runs of a zoo bug, the HTML."""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
import pytest
import torch

import kcheck
from kcheck.cases import Case
from kcheck.compare import rms, tolerance_for
from kcheck.diagnose._causes import Cause, Diagnosis, Experiment
from kcheck.report._html import write_html
from kcheck.report._maps import case_tensors, error_map, maps_for_case, tile_of
from kcheck.run._poison import poison_

pytest.importorskip("matplotlib")  # an optional dependency (it brings Pillow)

FAILING = "missing_tail_mask[M=128,N=17,fp32,randn,BLOCK_N=1024,seed=0]"
PASSING = "missing_tail_mask[M=128,N=1024,fp32,randn,BLOCK_N=1024,seed=0]"


@pytest.fixture(scope="module")
def tail_spec() -> kcheck.Spec:
    return importlib.import_module("zoo_kernels.missing_tail_mask").spec


def _case(spec: kcheck.Spec, case_id: str) -> Case:
    found = [c for c in kcheck.matrix(spec, large=False) if c.id == case_id]
    assert found, f"{case_id} is not in the matrix any more"
    return found[0]


def _pair(shape: tuple[int, ...], seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    expected = torch.randn(shape, generator=gen, dtype=torch.float64)
    return expected.to(torch.float32), expected


def _png_ok(path: Path) -> tuple[int, int]:
    assert path.is_file()
    from PIL import Image

    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 5_000 < path.stat().st_size < 300_000
    with Image.open(path) as img:
        w, h = img.size
    assert 600 <= w <= 1400 and 300 <= h <= 1400
    return w, h


def _tinted(path: Path, colour: str) -> int:
    """Pixels clearly of one hue ("blue": the tile lines, "green": NaN/Inf), blended with what lies under them."""
    from PIL import Image

    with Image.open(path) as img:
        px = np.asarray(img.convert("RGB")).astype(int)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    if colour == "blue":
        return int(((b > r + 60) & (b > g + 30)).sum())
    return int(((g > r + 60) & (g > b + 30)).sum())


def test_error_map_1d_with_nans(tmp_path: Path) -> None:
    actual, expected = _pair((1000,))
    actual[-7:] = float("nan")
    actual[100] += 1.0
    _png_ok(error_map(actual, expected, tmp_path / "one_d.png", title="1-D <tail>"))


def test_error_map_2d_unwritten_and_tolerance(tmp_path: Path) -> None:
    actual, expected = _pair((64, 129))
    poison_(actual[:, -1])  # the last column never written
    actual[3, 5] = float("inf")
    tol = tolerance_for("fp32", torch.float32, 1, rms(expected))
    _png_ok(error_map(actual, expected, tmp_path / "two_d.png", tolerance=tol))


def test_error_map_3d(tmp_path: Path) -> None:
    actual, expected = _pair((4, 16, 33))
    actual = actual.to(torch.float16)
    actual[1, :, -1] = float("nan")
    _png_ok(error_map(actual, expected, tmp_path / "three_d.png"))


def test_error_map_shape_mismatch_raises(tmp_path: Path) -> None:
    actual, expected = _pair((4, 4))
    with pytest.raises(ValueError, match="shapes differ"):
        error_map(actual, expected[:2], tmp_path / "x.png")


def test_tile_grid_is_drawn(tmp_path: Path) -> None:
    actual, expected = _pair((128, 128))
    actual[32:64, 64:96] += 0.5
    plain = error_map(actual, expected, tmp_path / "plain.png")
    tiled = error_map(actual, expected, tmp_path / "tiled.png", tile=(32, 32))
    _png_ok(tiled)
    assert _tinted(tiled, "blue") > _tinted(plain, "blue") + 500  # three lines each way, hundreds of pixels long
    one_d, exp_1d = _pair((4096,))
    one_d[-100:] = 0.0
    _png_ok(error_map(one_d, exp_1d, tmp_path / "blocks.png", tile=256))


def test_pooling_keeps_a_single_bad_element(tmp_path: Path) -> None:
    actual, expected = _pair((1500, 1500))
    clean = error_map(actual, expected, tmp_path / "clean.png")
    actual[1234, 777] = float("nan")
    marked = error_map(actual, expected, tmp_path / "marked.png")
    _png_ok(marked)
    # the pixel itself, and the column and row shaded beside the map, at least a few pixels wide
    assert _tinted(marked, "green") > _tinted(clean, "green") + 150


def test_tile_of() -> None:
    base = Case("k", (("N", 8),), "fp32")
    assert tile_of(base) is None
    assert tile_of(Case("k", (("N", 8),), "fp32", config=(("BLOCK", 128),))) == (128,)
    assert tile_of(Case("k", (("N", 8),), "fp32", config=(("BLOCK_M", 64), ("BLOCK_N", 32)))) == (64, 32)
    assert tile_of(Case("k", (("N", 8),), "fp32", config=(("BLOCK_N", 256),))) == (0, 256)


def test_case_tensors_rerun_a_zoo_bug(tail_spec: kcheck.Spec) -> None:
    outs = case_tensors(tail_spec, _case(tail_spec, FAILING))
    assert len(outs) == 1
    name, actual, expected = outs[0]
    assert name == "output 0"
    assert actual.shape == expected.shape == (128,)
    assert actual.device.type == "cpu" and expected.dtype == torch.float64
    wrong = (actual.double() - expected).abs() > 1e-3 * expected.abs().max()
    assert int(wrong.sum()) > 100  # every row but the last reads the next row's head


def test_maps_for_case(tail_spec: kcheck.Spec, tmp_path: Path) -> None:
    paths = maps_for_case(tail_spec, _case(tail_spec, FAILING), tmp_path)
    assert len(paths) == 1
    _png_ok(paths[0])
    assert maps_for_case(tail_spec, _case(tail_spec, PASSING), tmp_path / "none") == []


def test_write_html(tail_spec: kcheck.Spec, tmp_path: Path) -> None:
    report = kcheck.check(tail_spec, cases=[FAILING, PASSING])
    diagnosis = Diagnosis(
        tail_spec.name, True,
        causes=[Cause("edge-guard", "missing edge guard <mask> & 'tail'", 0.8, ["rows read past N"], "mask cols < N")],
        experiments=[Experiment("size", "N=16", "missing_tail_mask[M=1,N=16]", True, "")],
        minimal_case="missing_tail_mask[M=1,N=2]", repro="/tmp/repro.py")
    out = write_html(report, tmp_path / "report.html", specs=[tail_spec], diagnoses={tail_spec.name: diagnosis})
    text = out.read_text(encoding="utf-8")
    assert FAILING in text
    assert "<img" in text and "data:image/png;base64," in text
    assert "missing edge guard &lt;mask&gt; &amp; &#x27;tail&#x27;" in text
    assert "<mask>" not in text
    assert "Tensor-likes are not close!" in text  # the case's message, in <pre>
    assert "Next check:" in text and "/tmp/repro.py" in text
    no_specs = write_html(report, tmp_path / "bare.html", maps=True).read_text(encoding="utf-8")
    assert "<img" not in no_specs and "specs=" in no_specs
