//! Rust-level tests of the core: storage and version counters, engine scheduling, higher-order
//! gradients, and release of long chains without recursion. No Python involved.

use ferrograd::autograd::{self, GradOptions};
use ferrograd::{no_grad, DType, Tensor};

fn leaf(values: &[f64], shape: &[usize]) -> Tensor {
    let t = Tensor::from_vec(values.to_vec(), shape).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec()
}

fn close(a: &[f64], b: &[f64]) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

#[test]
fn views_share_storage_and_version() {
    let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    let row = x.select(0, 1).unwrap();
    let col = x.t().unwrap();
    assert!(!col.is_contiguous());
    assert_eq!(values(&col), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(x.version(), 0);
    row.fill_(ferrograd::Scalar::Float(0.0)).unwrap();
    assert_eq!(values(&x), vec![1.0, 2.0, 3.0, 0.0, 0.0, 0.0]);
    assert_eq!(x.version(), 1);
    assert_eq!(col.version(), 1);
    let d = x.detach();
    d.add_(&Tensor::ones(&[2, 3], DType::Float32)).unwrap();
    assert_eq!(x.version(), 2);
    assert_eq!(values(&x)[0], 2.0);
}

#[test]
fn diamond_graph_sums_both_paths() {
    // y = a*w + b*w with a = w^2, b = sin(w): dy/dw = 3w^2 + sin(w) + w cos(w)
    let w = leaf(&[0.7], &[]);
    let a = w.pow_scalar(2.0).unwrap();
    let b = w.sin().unwrap();
    let y = a.mul(&w).unwrap().add(&b.mul(&w).unwrap()).unwrap();
    y.backward(None, None, false).unwrap();
    let x: f64 = 0.7;
    close(
        &values(&w.grad().unwrap()),
        &[3.0 * x * x + x.sin() + x * x.cos()],
    );
}

#[test]
fn grad_captures_non_leaf_inputs_and_leaves_grad_alone() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let h = x.mul_scalar(2.0).unwrap();
    let y = h.pow_scalar(2.0).unwrap().sum().unwrap();
    let g = autograd::grad(&[y], &[h.clone(), x.clone()], &[], GradOptions::default()).unwrap();
    close(&values(g[0].as_ref().unwrap()), &[4.0, 8.0, 12.0]);
    close(&values(g[1].as_ref().unwrap()), &[8.0, 16.0, 24.0]);
    assert!(x.grad().is_none());
}

#[test]
fn second_backward_needs_retain_graph() {
    let x = leaf(&[2.0], &[1]);
    let y = x.exp().unwrap().sum().unwrap();
    y.backward(None, Some(true), false).unwrap();
    y.backward(None, None, false).unwrap();
    close(&values(&x.grad().unwrap()), &[2.0 * 2f64.exp()]);
    let err = y.backward(None, None, false).unwrap_err();
    assert!(err
        .message
        .starts_with("Trying to backward through the graph a second time"));
}

#[test]
fn create_graph_gives_third_derivative() {
    let x = leaf(&[1.5], &[]);
    let y = x.pow_scalar(4.0).unwrap();
    let opts = GradOptions {
        create_graph: true,
        ..Default::default()
    };
    let d1 = autograd::grad(&[y], std::slice::from_ref(&x), &[], opts).unwrap()[0]
        .clone()
        .unwrap();
    let d2 = autograd::grad(&[d1], std::slice::from_ref(&x), &[], opts).unwrap()[0]
        .clone()
        .unwrap();
    let d3 = autograd::grad(&[d2], std::slice::from_ref(&x), &[], GradOptions::default()).unwrap()
        [0]
    .clone()
    .unwrap();
    close(&values(&d3), &[24.0 * 1.5]);
}

#[test]
fn inplace_on_saved_tensor_is_caught_and_named() {
    let x = leaf(&[1.0, 2.0, 3.0], &[3]);
    let y = x.sin().unwrap();
    y.mul_(&y.clone()).unwrap();
    let err = y.sum().unwrap().backward(None, None, false).unwrap_err();
    assert!(err
        .message
        .contains("which is output 0 of SinBackward0, is at version 1; expected version 0"));
    assert!(err.message.contains("mul_"));
}

#[test]
fn leaf_inplace_rules() {
    let w = leaf(&[1.0, 2.0], &[2]);
    let err = w.add_(&Tensor::ones(&[2], DType::Float64)).unwrap_err();
    assert!(err
        .message
        .starts_with("a leaf Variable that requires grad is being used in an in-place operation."));
    assert_eq!(w.version(), 0);
    no_grad(|| w.sub_(&Tensor::ones(&[2], DType::Float64))).unwrap();
    assert_eq!(values(&w), vec![0.0, 1.0]);
    assert_eq!(w.version(), 1);
}

#[test]
fn broadcast_gradients_sum_back_to_input_shape() {
    let a = leaf(&[1.0, 2.0, 3.0], &[3, 1]);
    let b = leaf(&[10.0, 20.0], &[2]);
    let y = a.mul(&b).unwrap().sum().unwrap();
    y.backward(None, None, false).unwrap();
    assert_eq!(a.grad().unwrap().shape(), &[3, 1]);
    close(&values(&a.grad().unwrap()), &[30.0, 30.0, 30.0]);
    close(&values(&b.grad().unwrap()), &[6.0, 6.0]);
}

fn long_chain(n: usize) -> (Tensor, Tensor) {
    let x = leaf(&[1.0], &[]);
    let mut y = x.clone();
    for _ in 0..n {
        y = y.mul_scalar(1.000_001).unwrap();
    }
    (x, y)
}

#[test]
fn million_node_chain_backward_and_drop_on_small_stack() {
    let handle = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            let (x, y) = long_chain(1_000_000);
            y.backward(None, None, false).unwrap();
            let expected = 1.000_001f64.powi(1_000_000);
            let got = values(&x.grad().unwrap())[0];
            assert!(
                (got - expected).abs() < 1e-6 * expected,
                "{got} vs {expected}"
            );
            drop(y);
            // and a chain dropped without ever running backward
            let (_x, y) = long_chain(1_000_000);
            drop(y);
        })
        .unwrap();
    handle.join().unwrap();
}

#[test]
fn engine_runs_across_threads_with_per_thread_grad_mode() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let x = leaf(&[i as f64 + 1.0], &[]);
                let y = x.pow_scalar(3.0).unwrap();
                y.backward(None, None, false).unwrap();
                values(&x.grad().unwrap())[0]
            })
        })
        .collect();
    for (i, h) in handles.into_iter().enumerate() {
        let x = i as f64 + 1.0;
        assert_eq!(h.join().unwrap(), 3.0 * x * x);
    }
}

#[test]
fn concurrent_graph_tasks_over_the_same_graph_agree() {
    // Several threads differentiate one shared graph at once; each task numbers the nodes it
    // reaches, and finds many already numbered by another running task.
    let x = leaf(&[0.5, -1.5, 2.0], &[3]);
    let mut y = x.clone();
    for _ in 0..300 {
        y = y.sin().unwrap().mul(&x).unwrap().add(&x).unwrap();
    }
    let loss = y.sum().unwrap();
    let options = GradOptions {
        retain_graph: Some(true),
        ..GradOptions::default()
    };
    let expected = values(
        &autograd::grad(
            std::slice::from_ref(&loss),
            std::slice::from_ref(&x),
            &[],
            options,
        )
        .unwrap()[0]
            .clone()
            .unwrap(),
    );
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (loss, x) = (loss.clone(), x.clone());
            std::thread::spawn(move || {
                (0..25)
                    .map(|_| {
                        let g = autograd::grad(
                            std::slice::from_ref(&loss),
                            std::slice::from_ref(&x),
                            &[],
                            options,
                        )
                        .unwrap();
                        values(g[0].as_ref().unwrap())
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for h in handles {
        for g in h.join().unwrap() {
            assert_eq!(g, expected);
        }
    }
    // and the graph is still usable from here, once every task has let go of it
    loss.backward(None, None, false).unwrap();
    assert_eq!(values(&x.grad().unwrap()), expected);
}

/// x (n×n) through tanh, then branches of depths 1..=branches, each `(y @ w).sin()` repeated,
/// scaled sums added up; returns x's gradient. Every branch's gradient meets in tanh's node.
fn fan_in_gradient(n: usize, branches: usize) -> Vec<f64> {
    let wave = |k: usize, scale: f32| -> Tensor {
        let v: Vec<f32> = (0..n * n)
            .map(|i| (((i * 7919 + k * 104_729) % 1000) as f32 / 500.0 - 1.0) * scale)
            .collect();
        Tensor::from_vec(v, &[n, n]).unwrap()
    };
    let x = wave(0, 1.0);
    x.set_requires_grad(true).unwrap();
    let h = x.tanh().unwrap();
    let mut total: Option<Tensor> = None;
    for k in 0..branches {
        let w = wave(k + 1, 0.1);
        let mut y = h.clone();
        for _ in 0..=k {
            y = y.mm(&w).unwrap().sin().unwrap();
        }
        let part = y.sum().unwrap().mul_scalar((k + 1) as f64).unwrap();
        total = Some(match total {
            None => part,
            Some(t) => t.add(&part).unwrap(),
        });
    }
    total.unwrap().backward(None, None, false).unwrap();
    values(&x.grad().unwrap())
}

#[test]
fn parallel_backward_gives_the_same_bits_with_any_thread_count() {
    let before = ferrograd::num_threads();
    ferrograd::set_num_threads(1);
    let one = fan_in_gradient(128, 5);
    ferrograd::set_num_threads(2);
    let phases = autograd::parallel_phases_started();
    let handles: Vec<_> = (0..2)
        .map(|_| std::thread::spawn(|| fan_in_gradient(128, 5)))
        .collect();
    let mut runs: Vec<Vec<f64>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    runs.push(fan_in_gradient(128, 5));
    ferrograd::set_num_threads(before);
    // small branches (128×128 nodes) run side by side: the graph went through the phase
    assert_eq!(autograd::parallel_phases_started(), phases + 1);
    for run in runs {
        assert!(run
            .iter()
            .zip(&one)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

#[test]
fn a_formula_panicking_on_a_worker_thread_reaches_the_caller_without_a_hang() {
    let before = ferrograd::num_threads();
    ferrograd::set_num_threads(2);
    let phases = autograd::parallel_phases_started();
    let outcome = std::panic::catch_unwind(|| {
        let x = Tensor::from_vec(vec![0.5f32; 128 * 128], &[128, 128]).unwrap();
        x.set_requires_grad(true).unwrap();
        let branches: Vec<Tensor> = (0..6)
            .map(|k| {
                let y = x.sin().unwrap().mul_scalar(k as f64 + 1.0).unwrap();
                if k != 2 {
                    return y.sum().unwrap();
                }
                let out = y.detach();
                let broken = autograd::record(out, "BrokenBackward", &[&y], &[], |_| {
                    panic!("this formula fails on purpose")
                });
                broken.sum().unwrap()
            })
            .collect();
        let total = branches
            .iter()
            .skip(1)
            .fold(branches[0].clone(), |t, b| t.add(b).unwrap());
        total.backward(None, None, false)
    });
    ferrograd::set_num_threads(before);
    assert!(
        autograd::parallel_phases_started() > phases,
        "ran in the parallel phase"
    );
    let payload = outcome.expect_err("the panic comes back to the caller");
    let message = payload.downcast_ref::<&str>().copied().unwrap_or_default();
    assert_eq!(message, "this formula fails on purpose");
}

/// `fan_in_gradient` in float64 (whose matrix products go through the `gemm` crate, which runs
/// rayon jobs and waits for them from inside the pool).
fn fan_in_gradient_f64(n: usize, branches: usize) -> Vec<f64> {
    let x = Tensor::from_vec(
        (0..n * n).map(|i| (i % 17) as f64 / 17.0).collect(),
        &[n, n],
    )
    .unwrap();
    x.set_requires_grad(true).unwrap();
    let h = x.tanh().unwrap();
    let mut total: Option<Tensor> = None;
    for k in 0..branches {
        let w: Vec<f64> = (0..n * n).map(|i| ((i + k) % 13) as f64 / 130.0).collect();
        let w = Tensor::from_vec(w, &[n, n]).unwrap();
        let mut y = h.clone();
        for _ in 0..=k {
            y = y.mm(&w).unwrap().sin().unwrap();
        }
        let part = y.sum().unwrap();
        total = Some(match total {
            None => part,
            Some(t) => t.add(&part).unwrap(),
        });
    }
    total.unwrap().backward(None, None, false).unwrap();
    values(&x.grad().unwrap())
}

/// Runs `f` on a thread of its own and fails if it takes longer than `secs` (a hang).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || send.send(f()).unwrap());
    receive
        .recv_timeout(std::time::Duration::from_secs(secs))
        .expect("finished in time (not stuck)")
}

#[test]
fn parallel_backward_with_kernels_that_wait_on_the_pool_does_not_hang() {
    let before = ferrograd::num_threads();
    let one = {
        ferrograd::set_num_threads(1);
        fan_in_gradient_f64(160, 4)
    };
    for threads in [3, 2] {
        ferrograd::set_num_threads(threads);
        let runs = within(120, || {
            let handles: Vec<_> = (0..2)
                .map(|_| {
                    std::thread::spawn(|| {
                        let grad = fan_in_gradient_f64(160, 4);
                        assert_eq!(autograd::parallel_phases_started(), 1, "ran in the phase");
                        grad
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .collect::<Vec<_>>()
        });
        for run in runs {
            assert!(run
                .iter()
                .zip(&one)
                .all(|(a, b)| a.to_bits() == b.to_bits()));
        }
    }
    ferrograd::set_num_threads(before);
}
