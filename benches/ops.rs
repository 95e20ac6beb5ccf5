//! Criterion benchmarks of the Rust core (no Python): per-op overhead, backward cost per node,
//! matmul, a wide graph of independent branches, and a 1,000,000-node chain.
//! `cargo bench -- --test` runs each once (the CI smoke mode).

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use ferrograd::{no_grad, DType, Tensor};
use std::hint::black_box;

fn leaf(shape: &[usize]) -> Tensor {
    let t = Tensor::rand(shape, DType::Float32, None).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn small_ops(c: &mut Criterion) {
    let x = leaf(&[16]);
    let w = leaf(&[16]);
    c.bench_function("small_ops/forward_100_ops_recorded", |b| {
        b.iter(|| {
            let mut y = x.clone();
            for _ in 0..100 {
                y = y.mul(&w).unwrap().add(&x).unwrap().tanh().unwrap();
            }
            black_box(y)
        })
    });
    c.bench_function("small_ops/forward_100_ops_no_grad", |b| {
        b.iter(|| {
            no_grad(|| {
                let mut y = x.clone();
                for _ in 0..100 {
                    y = y.mul(&w).unwrap().add(&x).unwrap().tanh().unwrap();
                }
                black_box(y)
            })
        })
    });
    c.bench_function("small_ops/backward_300_nodes", |b| {
        b.iter_batched(
            || {
                let mut y = x.clone();
                for _ in 0..100 {
                    y = y.mul(&w).unwrap().add(&x).unwrap().tanh().unwrap();
                }
                y.sum().unwrap()
            },
            |loss| loss.backward(None, None, false).unwrap(),
            BatchSize::SmallInput,
        )
    });
}

fn matmul(c: &mut Criterion) {
    let a = leaf(&[256, 256]);
    let b = leaf(&[256, 256]);
    c.bench_function("matmul/256_forward_backward", |bench| {
        bench.iter(|| {
            a.mm(&b)
                .unwrap()
                .sum()
                .unwrap()
                .backward(None, None, false)
                .unwrap()
        })
    });
}

fn wide_branches(c: &mut Criterion) {
    let ws: Vec<Tensor> = (0..8).map(|_| leaf(&[64, 64])).collect();
    let h0 = Tensor::rand(&[64, 64], DType::Float32, None).unwrap();
    c.bench_function("wide_branches/8x4_tanh_mm_64", |bench| {
        bench.iter(|| {
            let mut total = Tensor::zeros(&[], DType::Float32);
            for w in &ws {
                let mut h = h0.clone();
                for _ in 0..4 {
                    h = h.mm(w).unwrap().tanh().unwrap();
                }
                total = total.add(&h.sum().unwrap()).unwrap();
            }
            total.backward(None, None, false).unwrap();
        })
    });
}

fn deep_chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("deep_chain");
    group.sample_size(10);
    group.bench_function("1_000_000_scalar_ops_backward_and_free", |bench| {
        bench.iter(|| {
            let x = leaf(&[]);
            let mut y = x.clone();
            for _ in 0..1_000_000 {
                y = y.mul_scalar(1.0001).unwrap();
            }
            y.backward(None, None, false).unwrap();
            drop(y);
            black_box(x.grad())
        })
    });
    group.finish();
}

criterion_group!(benches, small_ops, matmul, wide_branches, deep_chain);
criterion_main!(benches);
