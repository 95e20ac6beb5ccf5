//! The Rust API as a user's crate sees it: `nn` and `optim` against PyTorch's recorded values
//! (tests/golden, written by tools/record_torch_cases.py), operators and ndarray interop
//! together with autograd.

use ferrograd::nn::{self, Module};
use ferrograd::optim::{Adadelta, Adagrad, Adam, AdamW, Adamax, Optimizer, RmsProp, Sgd};
use ferrograd::{DType, Result, Tensor};
use std::sync::Mutex;

/// The tests that draw from the default generator take turns.
static GENERATOR: Mutex<()> = Mutex::new(());

/// The golden file `name` of tests/golden.
fn golden(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// A JSON value made of numbers, strings and (nested) arrays only, which is all these tests
/// read.
#[derive(Debug)]
enum Json {
    Number(f64),
    String(String),
    Array(Vec<Json>),
}

impl Json {
    /// Parses the array, string or number at the start of `s`; returns it and the rest.
    fn parse(s: &str) -> (Json, &str) {
        let s = s.trim_start();
        if let Some(mut rest) = s.strip_prefix('[') {
            let mut items = Vec::new();
            loop {
                rest = rest.trim_start();
                if let Some(after) = rest.strip_prefix(']') {
                    return (Json::Array(items), after);
                }
                let (item, after) = Json::parse(rest);
                items.push(item);
                rest = after.trim_start();
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
        }
        if let Some(rest) = s.strip_prefix('"') {
            let end = rest.find('"').unwrap();
            return (Json::String(rest[..end].to_string()), &rest[end + 1..]);
        }
        let end = s
            .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .unwrap_or(s.len());
        (Json::Number(s[..end].parse().unwrap()), &s[end..])
    }

    fn numbers(&self) -> Vec<f64> {
        match self {
            Json::Number(v) => vec![*v],
            Json::Array(items) => items.iter().flat_map(Json::numbers).collect(),
            Json::String(_) => panic!("not a number"),
        }
    }

    fn rows(&self) -> Vec<Vec<f64>> {
        match self {
            Json::Array(items) => items.iter().map(Json::numbers).collect(),
            Json::Number(_) | Json::String(_) => panic!("not an array of arrays"),
        }
    }
}

/// The array after the first `"key":` that follows each of `path`'s keys in turn.
fn find(text: &str, path: &[&str]) -> Json {
    let mut at = 0;
    for key in path {
        let quoted = format!("\"{key}\":");
        at += text[at..]
            .find(&quoted)
            .unwrap_or_else(|| panic!("no {key}"))
            + quoted.len();
    }
    Json::parse(&text[at..]).0
}

#[test]
fn linear_draws_pytorchs_initial_values() {
    let _turn = GENERATOR.lock().unwrap();
    let text = golden("init_values.json");
    for seed in ["0", "7"] {
        ferrograd::manual_seed(seed.parse().unwrap());
        let layer = nn::Linear::new(5, 3).unwrap();
        let big = nn::Linear::new(20, 4).unwrap();
        for (got, key) in [
            (layer.weight(), "linear.weight"),
            (layer.bias().unwrap(), "linear.bias"),
            (big.weight(), "linear20.weight"),
        ] {
            let expected: Vec<f32> = find(&text, &["seeds", seed, key])
                .numbers()
                .iter()
                .map(|&v| v as f32)
                .collect();
            assert_eq!(got.to_vec::<f32>().unwrap(), expected, "seed {seed}, {key}");
        }
    }
}

/// tests/optim_cases.py's problem: the parameters after each step of `make(params)`, and the
/// names of the first parameter's state tensors, sorted.
fn trajectory<T: ferrograd::core::buffer::BufferElement + Into<f64>>(
    make: impl Fn(Vec<Tensor>) -> Box<dyn Optimizer>,
    steps: usize,
    from_f64: fn(f64) -> T,
) -> Result<(Vec<Vec<f64>>, Vec<String>)> {
    let values = |n: usize, phase: f64| -> Vec<T> {
        (0..n)
            .map(|i| from_f64((1.7 * i as f64 + phase).sin()))
            .collect()
    };
    let w = Tensor::from_vec(values(12, 0.3), &[3, 4])?;
    let b = Tensor::from_vec(values(4, 1.1), &[4])?;
    let x = Tensor::from_vec(values(15, 2.0), &[5, 3])?;
    w.set_requires_grad(true)?;
    b.set_requires_grad(true)?;
    let mut opt = make(vec![w.clone(), b.clone()]);
    let mut out = Vec::new();
    for _ in 0..steps {
        opt.zero_grad()?;
        // ((x @ w + b).tanh() ** 2).sum() + 0.01 * (w * w).sum()
        let fit = (x.matmul(&w)? + &b)?.tanh()?.pow_scalar(2i64)?.sum()?;
        let loss = (fit + 0.01 * (&w * &w)?.sum()?)?;
        loss.backward(None, None, false)?;
        opt.step()?;
        let mut row: Vec<f64> = w.to_vec::<T>()?.into_iter().map(Into::into).collect();
        row.extend(b.to_vec::<T>()?.into_iter().map(Into::into));
        out.push(row);
    }
    let mut names: Vec<String> = opt
        .state(0)
        .unwrap()
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    names.sort();
    Ok((out, names))
}

#[test]
fn optimizers_follow_pytorchs_trajectories() {
    let text = golden("optim_trajectories.json");
    type Make = fn(Vec<Tensor>) -> Box<dyn Optimizer>;
    let cases: Vec<(&str, Make)> = vec![
        ("sgd", |p| Box::new(Sgd::new(p, 0.1))),
        ("sgd_momentum", |p| {
            Box::new(Sgd::new(p, 0.05).momentum(0.9))
        }),
        ("sgd_dampening", |p| {
            Box::new(Sgd::new(p, 0.05).momentum(0.9).dampening(0.3))
        }),
        ("sgd_nesterov", |p| {
            Box::new(Sgd::new(p, 0.05).momentum(0.8).nesterov(true))
        }),
        ("sgd_weight_decay", |p| {
            Box::new(Sgd::new(p, 0.1).momentum(0.5).weight_decay(0.01))
        }),
        ("sgd_maximize", |p| {
            Box::new(Sgd::new(p, 0.01).maximize(true))
        }),
        ("adam", |p| Box::new(Adam::new(p, 0.01))),
        ("adam_amsgrad", |p| {
            Box::new(Adam::new(p, 0.02).amsgrad(true))
        }),
        ("adam_weight_decay", |p| {
            Box::new(Adam::new(p, 0.01).weight_decay(0.1).betas(0.8, 0.99))
        }),
        ("adam_maximize", |p| {
            Box::new(Adam::new(p, 0.01).maximize(true).eps(1e-6))
        }),
        ("adamw", |p| Box::new(AdamW::new(p, 0.01))),
        ("adamw_amsgrad", |p| {
            Box::new(AdamW::new(p, 0.02).weight_decay(0.05).amsgrad(true))
        }),
        ("rmsprop", |p| Box::new(RmsProp::new(p, 0.01))),
        ("rmsprop_momentum", |p| {
            Box::new(RmsProp::new(p, 0.01).momentum(0.8).alpha(0.9))
        }),
        ("rmsprop_centered", |p| {
            Box::new(RmsProp::new(p, 0.01).centered(true).weight_decay(0.1))
        }),
        ("rmsprop_centered_momentum_max", |p| {
            Box::new(
                RmsProp::new(p, 0.005)
                    .centered(true)
                    .momentum(0.5)
                    .maximize(true)
                    .eps(1e-4),
            )
        }),
        ("adagrad", |p| Box::new(Adagrad::new(p, 0.1))),
        ("adagrad_decay", |p| {
            Box::new(
                Adagrad::new(p, 0.1)
                    .lr_decay(0.05)
                    .weight_decay(0.02)
                    .initial_accumulator_value(0.3),
            )
        }),
        ("adagrad_maximize", |p| {
            Box::new(Adagrad::new(p, 0.05).maximize(true))
        }),
        ("adadelta", |p| Box::new(Adadelta::new(p, 1.0))),
        ("adadelta_tuned", |p| {
            Box::new(Adadelta::new(p, 0.5).rho(0.8).weight_decay(0.1).eps(1e-5))
        }),
        ("adamax", |p| Box::new(Adamax::new(p, 0.02))),
        ("adamax_tuned", |p| {
            Box::new(
                Adamax::new(p, 0.01)
                    .betas(0.8, 0.95)
                    .weight_decay(0.1)
                    .maximize(true),
            )
        }),
    ];
    for (name, make) in cases {
        for dtype in ["float32", "float64"] {
            let expected = find(&text, &["cases", &format!("{name}-{dtype}"), "trajectory"]).rows();
            assert_eq!(
                (expected.len(), expected[0].len()),
                (8, 16),
                "{name}-{dtype}"
            );
            let (got, rtol, atol) = if dtype == "float32" {
                (trajectory(make, expected.len(), |v| v as f32), 1e-5, 1e-6)
            } else {
                (trajectory(make, expected.len(), |v| v), 1e-12, 1e-14)
            };
            let (got, names) = got.unwrap();
            // PyTorch's state keys, less the step count (a number here, not a tensor)
            let keys = find(&text, &["cases", &format!("{name}-{dtype}"), "state_keys"]);
            let keys: Vec<String> = match keys {
                Json::Array(items) => items
                    .iter()
                    .filter_map(|k| match k {
                        Json::String(k) if k != "step" => Some(k.clone()),
                        _ => None,
                    })
                    .collect(),
                _ => panic!("state_keys is a list"),
            };
            assert_eq!(names, keys, "{name}-{dtype}: state");
            for (step, (g, e)) in got.iter().zip(&expected).enumerate() {
                for (a, b) in g.iter().zip(e) {
                    assert!(
                        (a - b).abs() <= atol + rtol * b.abs(),
                        "{name}-{dtype}, step {}: {g:?} != {e:?}",
                        step + 1
                    );
                }
            }
        }
    }
}

#[test]
fn optimizers_refuse_pytorchs_invalid_settings() {
    let p = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
    p.set_requires_grad(true).unwrap();
    let err = Sgd::new(vec![p.clone()], 0.1)
        .nesterov(true)
        .step()
        .unwrap_err();
    assert!(
        err.to_string().contains("Nesterov momentum requires"),
        "{err}"
    );
    let err = Adam::new(vec![p.clone()], 0.1)
        .betas(1.0, 0.9)
        .step()
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("Invalid beta parameter at index 0"),
        "{err}"
    );
    let err = Sgd::new(vec![p], -1.0).step().unwrap_err();
    assert!(
        err.to_string().contains("Invalid learning rate: -1"),
        "{err}"
    );
}

#[test]
fn a_small_mlp_learns_xor() -> Result<()> {
    let _turn = GENERATOR.lock().unwrap();
    ferrograd::manual_seed(1);
    let model = nn::Sequential::new()
        .add(nn::Linear::new(2, 16)?)
        .add(nn::Tanh)
        .add(nn::Linear::new(16, 2)?);
    let x = Tensor::from_array(ndarray::array![
        [0.0f32, 0.0],
        [0.0, 1.0],
        [1.0, 0.0],
        [1.0, 1.0]
    ]);
    let y = Tensor::from_vec(vec![0i64, 1, 1, 0], &[4])?;
    let mut opt = Adam::new(model.parameters(), 0.05);
    let first = nn::cross_entropy(&model.forward(&x)?, &y)?.item()?.to_f64();
    let mut last = first;
    for _ in 0..200 {
        opt.zero_grad()?;
        let loss = nn::cross_entropy(&model.forward(&x)?, &y)?;
        loss.backward(None, None, false)?;
        opt.step()?;
        last = loss.item()?.to_f64();
    }
    assert!(last < 0.05 && first > 0.5, "loss {first} -> {last}");
    let predicted = model.forward(&x)?.argmax(Some(1), false)?;
    assert_eq!(
        predicted.to_array::<i64>()?,
        ndarray::arr1(&[0i64, 1, 1, 0]).into_dyn()
    );
    Ok(())
}

#[test]
fn operators_and_ndarray_views_carry_gradients() -> Result<()> {
    let x = Tensor::from_array(ndarray::array![1.0f64, 2.0, 3.0]);
    x.set_requires_grad(true)?;
    // y = sum(3x² - x / 2 + 1)  =>  dy/dx = 6x - 1/2
    let y = (((3.0 * (&x * &x)?)? - (&x / 2.0)?)? + 1.0)?.sum()?;
    y.backward(None, None, false)?;
    let grad = x.grad().unwrap();
    let sum = grad.with_array_view(|g: ndarray::ArrayViewD<f64>| g.sum())?;
    assert_eq!(sum, 5.5 + 11.5 + 17.5);
    assert_eq!(y.item()?.to_f64(), 3.0 * 14.0 - 3.0 + 3.0);
    assert_eq!(
        Tensor::zeros(&[2], DType::Float32)
            .to_array::<f32>()?
            .ndim(),
        1
    );
    Ok(())
}

#[test]
fn frobenius_norm_is_the_2_norm_and_refuses_more_than_two_dims_as_pytorch() -> Result<()> {
    let x = Tensor::from_vec(vec![3.0f64, 4.0, 0.0, 12.0], &[2, 1, 2])?;
    assert_eq!(x.norm_fro(&[], false, None)?.item()?.to_f64(), 13.0);
    let rows = x.norm_fro(&[0, 2], false, None)?;
    assert_eq!(rows.to_vec::<f64>()?, vec![13.0]);
    let err = x.norm_fro(&[0, 1, 2], false, None).unwrap_err();
    assert!(
        err.to_string()
            .contains("linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2"),
        "{err}"
    );
    Ok(())
}

#[test]
fn sparse_coo_products_and_their_gradients_as_pytorch() -> Result<()> {
    // the sparse matrix [[0, 1], [2, 0]] (its (0, 1) element stored twice: 0.25 + 0.75)
    let indices = Tensor::from_vec(vec![0i64, 1, 0, 1, 0, 1], &[2, 3])?;
    let values = Tensor::from_vec(vec![0.25f64, 2.0, 0.75], &[3])?;
    let s = Tensor::sparse_coo(&indices, &values, &[2, 2])?;
    assert!(s.is_sparse() && !s.is_coalesced()?);
    assert_eq!(s.to_dense()?.to_vec::<f64>()?, vec![0.0, 1.0, 2.0, 0.0]);
    let c = s.coalesce()?;
    assert_eq!(c.nnz()?, 2);
    assert_eq!(c.sparse_indices()?.to_vec::<i64>()?, vec![0, 1, 1, 0]);
    // d/dw sum(S @ w) = Sᵀ @ ones: column sums of S for every column of w
    let w = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    w.set_requires_grad(true)?;
    let out = s.mm(&w)?;
    assert_eq!(out.to_vec::<f64>()?, vec![3.0, 4.0, 2.0, 4.0]);
    out.sum()?.backward(None, None, false)?;
    assert_eq!(w.grad().unwrap().to_vec::<f64>()?, vec![2.0, 2.0, 1.0, 1.0]);
    // torch.sparse.mm gives a sparse operand a sparse gradient at its stored positions
    let a = c.detach();
    a.set_requires_grad(true)?;
    a.sparse_mm(&w.detach())?
        .sum()?
        .backward(None, None, false)?;
    let grad = a.grad().unwrap();
    assert!(grad.is_sparse());
    assert_eq!(grad.to_dense()?.to_vec::<f64>()?, vec![0.0, 7.0, 3.0, 0.0]);
    Ok(())
}

#[test]
fn embedding_bag_from_rust() -> Result<()> {
    use ferrograd::ops::nn::embedding::{BagMode, BagOptions};
    // rows [0, 1], [2, 3], [4, 5]; bags {0, 2}, {}, {1, 1}: values and gradients as PyTorch's
    let weight = Tensor::from_vec((0..6).map(f64::from).collect(), &[3, 2])?;
    weight.set_requires_grad(true)?;
    let indices = Tensor::from_vec(vec![0i64, 2, 1, 1], &[4])?;
    let offsets = Tensor::from_vec(vec![0i64, 2, 2], &[3])?;
    let options = BagOptions::default();
    let mean = weight.embedding_bag(&indices, &offsets, BagMode::Mean, &options)?;
    assert_eq!(mean.to_vec::<f64>()?, vec![2.0, 3.0, 0.0, 0.0, 2.0, 3.0]);
    mean.sum()?.backward(None, None, false)?;
    let grad = weight.grad().expect("a gradient");
    assert_eq!(grad.to_vec::<f64>()?, vec![0.5, 0.5, 1.0, 1.0, 0.5, 0.5]);
    let max = weight.embedding_bag(&indices, &offsets, BagMode::Max, &options)?;
    assert_eq!(max.to_vec::<f64>()?, vec![4.0, 5.0, 0.0, 0.0, 2.0, 3.0]);
    let sparse = BagOptions {
        sparse: true,
        ..BagOptions::default()
    };
    let sum = weight.embedding_bag(&indices, &offsets, BagMode::Sum, &sparse)?;
    weight.set_grad(None)?;
    sum.sum()?.backward(None, None, false)?;
    let grad = weight.grad().expect("a gradient");
    assert!(grad.is_sparse());
    assert_eq!(
        grad.to_dense()?.to_vec::<f64>()?,
        vec![1.0, 1.0, 2.0, 2.0, 1.0, 1.0]
    );
    Ok(())
}

/// Smooth values away from zero, for the normalization tests.
fn norm_values(n: usize, phase: f64) -> Vec<f64> {
    (0..n)
        .map(|i| 3.0 + (1.3 * i as f64 + phase).sin())
        .collect()
}

/// Layer norm against its definition, and its statistics.
#[test]
fn layer_norm_normalizes_rows() {
    let data = norm_values(12, 0.4);
    let x = Tensor::from_vec(data.clone(), &[3, 4]).unwrap();
    let y = x
        .layer_norm(&[4], None, None, 1e-5)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for (row, out) in data.chunks(4).zip(y.chunks(4)) {
        let mean = row.iter().sum::<f64>() / 4.0;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 4.0;
        for (v, o) in row.iter().zip(out) {
            assert!((o - (v - mean) / (var + 1e-5).sqrt()).abs() < 1e-12);
        }
    }
}

/// Batch norm in training writes the running statistics (unbiased variance) in place.
#[test]
fn batch_norm_updates_running_statistics() {
    let x = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 5.0], &[2, 2]).unwrap();
    let (rm, rv) = (
        Tensor::zeros(&[2], DType::Float64),
        Tensor::ones(&[2], DType::Float64),
    );
    x.batch_norm(None, None, Some(&rm), Some(&rv), true, 0.5, 1e-5)
        .unwrap();
    assert_eq!(rm.to_vec::<f64>().unwrap(), vec![1.0, 1.75]);
    assert_eq!(rv.to_vec::<f64>().unwrap(), vec![1.5, 2.75]);
}
