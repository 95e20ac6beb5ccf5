"""The demo (``python -m ferrograd.demo``) trains a digits classifier to at least 95% test
accuracy and writes its two pictures; run when the demo extra (scikit-learn, matplotlib) is
installed. PyTorch is never imported here (``--no-torch``, or its import replaced)."""

import shutil

import pytest

pytest.importorskip("sklearn")
pytest.importorskip("matplotlib")

from ferrograd import demo

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def test_load_data_is_the_bundled_digits_split_and_standardised():
    x_train, y_train, x_test, y_test = demo.load_data()
    assert x_train.shape == (1347, 64) and x_test.shape == (450, 64)
    assert sorted(set(y_test.tolist())) == list(range(10))
    assert abs(float(x_train.mean())) < 1e-5
    assert x_train.dtype.name == "float32" and y_train.dtype.name == "int64"


def test_main_trains_to_95_percent_and_writes_both_pictures(tmp_path, capsys):
    assert demo.main(["--out", str(tmp_path), "--epochs", "6", "--no-torch"]) == 0
    printed = capsys.readouterr().out
    assert "ferrograd epoch  1/6" in printed and "loss=" in printed  # the tqdm bars
    accuracy = float(printed.split("test accuracy:   ferrograd ")[1].split("%")[0])
    assert accuracy >= 95.0
    with open(tmp_path / demo.CURVES_FILE, "rb") as f:
        assert f.read(8) == PNG_MAGIC
    svg, dot = tmp_path / (demo.GRAPH_STEM + ".svg"), tmp_path / (demo.GRAPH_STEM + ".dot")
    if shutil.which("dot") is not None and _has_graphviz():
        text = svg.read_text()
        assert "<svg" in text and not dot.exists()
    else:
        text = dot.read_text()
        assert "dot -Tsvg" in printed and not svg.exists()
    for name in ("ConvolutionBackward0", "NllLossBackward0", "1.weight", "AccumulateGrad"):
        assert name in text
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [demo.CURVES_FILE, (svg if svg.exists() else dot).name]
    )


def _has_graphviz():
    try:
        import graphviz  # noqa: F401
    except ImportError:
        return False
    return True


def test_run_mlp_and_the_torch_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(demo, "_import_torch", lambda: None)
    result = demo.run(out=str(tmp_path), epochs=5, model="mlp", progress=False)
    assert "PyTorch not installed" in capsys.readouterr().out
    assert result.torch is None
    fg = result.ferrograd
    assert fg.library == "ferrograd" and len(fg.losses) == len(fg.accuracies) == 5
    assert fg.accuracy >= 0.95
    assert fg.losses[-1] < 0.1 < fg.losses[0]  # the training loss falls
    assert result.curves_path is not None and result.graph_path.startswith(str(tmp_path))
    with open(result.graph_path) as f:
        text = f.read()
    assert "AddmmBackward0" in text and "ConvolutionBackward0" not in text


def test_unknown_model_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"unknown model 'rnn': expected one of \['cnn', 'mlp'\]"):
        demo.run(out=str(tmp_path), model="rnn", compare_torch=False)
