//! The crate's floors and the direction of their dependencies, checked from the sources.
//!
//! `src/` is built in floors, each using only the floors below it:
//!
//! | floor | folder | holds |
//! |---|---|---|
//! | 0 | `core/` | dtype, layout, buffer and pool, storage, tensor, error, format, grad mode |
//! | 1 | `cpu/` | kernels, fast maths, the matrix product, the thread pool, the allocator |
//! | 2 | `autograd/` | graph nodes, saved tensors, the engine |
//! | 3 | `ops/` | every differentiable op: its kernel call and its derivative |
//! | 4 | `nn/`, `optim/` | layers, losses and optimizers for Rust programs (neither uses the other) |
//! | 5 | `python/` | the pyo3 bindings |
//!
//! Two edges go down the stairs, on purpose:
//! - `autograd -> ops`: backward formulas are written with ops, so they differentiate again.
//! - `core/tensor.rs -> autograd`: a tensor handle holds its `grad_fn` edge inline (PyTorch's
//!   `Variable` holds its `AutogradMeta` the same way); a trait object there would cost an
//!   allocation and an indirect call per op on the hot path.
//!
//! This test reads every `crate::` path in `src/` and fails on any other edge that goes down.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The floor of a top-level module, or of a name the crate root re-exports.
fn floor_of(name: &str) -> Option<usize> {
    Some(match name {
        "core" => 0,
        "cpu" => 1,
        "autograd" => 2,
        "ops" => 3,
        "nn" | "optim" => 4,
        "python" => 5,
        // re-exports at the crate root (lib.rs) and `#[macro_export]` macros of core/dtype.rs
        "DType" | "Scalar" | "Error" | "ErrorKind" | "Result" | "Tensor" | "with_float"
        | "with_num" | "with_any" | "bail" | "is_grad_enabled" | "no_grad" | "set_grad_enabled"
        | "GradModeGuard" => 0,
        "num_threads" | "set_num_threads" => 1,
        "manual_seed" | "unary_table" | "binary_table" | "backward_table" => 3,
        _ => return None,
    })
}

/// The edges that are allowed to go to a higher floor: (file prefix, target module).
const ALLOWED_UPWARD: &[(&str, &str)] = &[("autograd/", "ops"), ("core/tensor.rs", "autograd")];

/// Edges refused within a floor: (file prefix, target module).
const REFUSED_SIDEWAYS: &[(&str, &str)] = &[("nn/", "optim"), ("optim/", "nn")];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `file`'s path below `src`, with forward slashes.
fn relative(file: &Path, src: &Path) -> String {
    file.strip_prefix(src)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The first path segment after each `crate::` in `source` (inside `crate::{a::b, c}` groups,
/// each item's first segment).
fn crate_paths(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let bytes = source.as_bytes();
    let ident = |start: usize| -> String {
        source[start..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in source.match_indices("crate::") {
        let mut i = at + "crate::".len();
        if bytes.get(i) == Some(&b'{') {
            // the top-level items of the group
            let mut depth = 0;
            let mut item_start = true;
            while i < bytes.len() {
                match bytes[i] {
                    b'{' => {
                        depth += 1;
                        item_start = depth == 1;
                    }
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b',' if depth == 1 => item_start = true,
                    c if item_start && (c.is_ascii_alphabetic() || c == b'_') => {
                        found.insert(ident(i));
                        item_start = false;
                    }
                    _ => {}
                }
                i += 1;
            }
        } else {
            let name = ident(i);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

#[test]
fn floors_only_use_the_floors_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    let mut checked = 0;
    for file in &files {
        let rel = relative(file, &src);
        let Some(own) = rel.split('/').next().and_then(|top| {
            // files at the top of src/ (lib.rs) may use everything
            rel.contains('/').then(|| floor_of(top)).flatten()
        }) else {
            continue;
        };
        checked += 1;
        let source = std::fs::read_to_string(file).unwrap();
        for target in crate_paths(&source) {
            let Some(floor) = floor_of(&target) else {
                violations.push(format!("{rel}: uses crate::{target}, which is in no floor"));
                continue;
            };
            let allowed = ALLOWED_UPWARD
                .iter()
                .any(|(prefix, t)| rel.starts_with(prefix) && *t == target);
            let refused = REFUSED_SIDEWAYS
                .iter()
                .any(|(prefix, t)| rel.starts_with(prefix) && *t == target);
            if (floor > own && !allowed) || refused {
                violations.push(format!(
                    "{rel} (floor {own}) uses crate::{target} (floor {floor})"
                ));
            }
        }
    }
    assert!(checked > 20, "found only {checked} files under src/");
    assert!(
        violations.is_empty(),
        "dependencies that go against the floors:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_path_reader_sees_grouped_and_plain_paths() {
    let found = crate_paths(
        "use crate::{core::tensor::Tensor, ops::{a, b}};\nlet x = crate::cpu::kernels::map(1);",
    );
    let expected: BTreeSet<String> = ["core", "ops", "cpu"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(found, expected);
}

/// Vector code lives on the `cpu` floor: no file elsewhere names an instruction-set feature,
/// an intrinsic or a vector type, and one function (`cpu::kernels`' `level`, behind
/// `simd_level`) asks the CPU what it has. The ops compile their loops for wide vectors
/// through `cpu::kernels::wide_variants!` / `cpu::kernels::wide`, which pick the variant.
#[test]
fn vector_code_and_feature_detection_live_in_cpu() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let vector_words = [
        "target_feature",
        "_mm512",
        "_mm256",
        "__m512",
        "__m256",
        "std::arch",
    ];
    let mut outside = Vec::new();
    let mut detections = Vec::new();
    for file in &files {
        let rel = relative(file, &src);
        let source = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = source.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            if !rel.starts_with("cpu/") {
                for word in vector_words.iter().filter(|w| line.contains(**w)) {
                    outside.push(format!("{rel}:{}: {word}", n + 1));
                }
            }
            if line.contains("is_x86_feature_detected!") {
                // the enclosing function: the nearest `fn` line above
                let owner = lines[..=n].iter().rev().find(|l| l.contains("fn "));
                detections.push(format!("{rel}: {}", owner.map_or("", |l| l.trim())));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "vector code outside src/cpu/: {outside:#?}"
    );
    detections.dedup();
    assert_eq!(
        detections,
        ["cpu/kernels/mod.rs: pub(super) fn level() -> u8 {"],
        "CPU features are asked in exactly one function"
    );
}

/// Files of `src/` longer than 800 lines, each with the length it may not grow past, until it
/// is split (issue 27). A file leaves this list when it is split; none joins it.
const LONG_FILES: &[(&str, usize)] = &[("cpu/sgemm.rs", 1463)];

/// A source file reads in one sitting: at most 800 lines, except the listed ones, which may
/// only shrink.
#[test]
fn source_files_stay_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let rel = relative(file, &src);
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        let limit = LONG_FILES
            .iter()
            .find(|(name, _)| *name == rel)
            .map_or(800, |(_, limit)| *limit);
        if lines > limit {
            long.push(format!("{rel}: {lines} lines (at most {limit})"));
        }
    }
    assert!(long.is_empty(), "files too long to read: {long:#?}");
}

/// Each family of ops under `src/ops/` is a folder of at most 10 files (its `mod.rs` counted),
/// and the ops' top level holds only the families and the few files beside them.
#[test]
fn op_families_are_small_folders() {
    let ops = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ops");
    let mut folders = 0;
    let mut top_files = Vec::new();
    for entry in std::fs::read_dir(&ops).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            folders += 1;
            let count = std::fs::read_dir(&path).unwrap().count();
            assert!(
                count <= 10,
                "src/ops/{name}/ holds {count} files (at most 10)"
            );
            assert!(
                path.join("mod.rs").exists(),
                "src/ops/{name}/ has no mod.rs"
            );
        } else {
            top_files.push(name);
        }
    }
    top_files.sort();
    assert_eq!(
        folders, 5,
        "the families: pointwise, reduce, shape, linalg, nn"
    );
    assert!(
        top_files.len() <= 6,
        "files beside the families in src/ops/: {top_files:?}"
    );
}

/// No binding is registered by hand: `build.rs` adds every `#[pyfunction]` and `#[pyclass]` of
/// `src/python/` to the module (Note [Bindings register themselves]); only the table macros'
/// generated functions (`wrap_pyfunction!($name ...)`) are added where they are made.
#[test]
fn bindings_are_not_registered_by_hand() {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/python");
    let mut files = Vec::new();
    rust_files(&python, &mut files);
    let mut manual = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let by_hand = line.contains("add_class::<")
                || line
                    .split("wrap_pyfunction!(")
                    .skip(1)
                    .any(|argument| !argument.starts_with('$'));
            if by_hand {
                manual.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        manual.is_empty(),
        "bindings registered by hand: {manual:#?}"
    );
}
