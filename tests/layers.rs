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

mod source_tree;

use source_tree::{rust_files, SourceTree};
use std::collections::BTreeSet;
use std::path::Path;

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
        | "GradModeGuard" | "match_dtype" => 0,
        "num_threads" | "set_num_threads" => 1,
        "manual_seed" | "unary_table" | "binary_table" | "backward_table" => 3,
        _ => return None,
    })
}

/// The edges that are allowed to go to a higher floor: (file prefix, target module).
const ALLOWED_UPWARD: &[(&str, &str)] = &[("autograd/", "ops"), ("core/tensor.rs", "autograd")];

/// Edges refused within a floor: (file prefix, target module).
const REFUSED_SIDEWAYS: &[(&str, &str)] = &[("nn/", "optim"), ("optim/", "nn")];

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

/// The two edges that go up the floors on purpose (see the module's doc): the only ones that
/// may close a circle between files.
fn documented_upward(from: &str, to: &str) -> bool {
    (from.starts_with("autograd/") && to.starts_with("ops/"))
        || (from == "core/tensor.rs" && to.starts_with("autograd/"))
}

/// The floor of a file below `src/` (`lib.rs` has none).
fn floor_of_file(rel: &str) -> Option<usize> {
    rel.split_once('/').and_then(|(top, _)| floor_of(top))
}

/// Calls of tensor methods obey the floors as paths do: a method an op file gives `Tensor`
/// is an op, and a file below the ops may not call it (except through the documented edges).
#[test]
fn method_calls_obey_the_floors() {
    let tree = SourceTree::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let mut violations = Vec::new();
    for (from, to) in tree.method_edges() {
        let (a, b) = (&tree.files[from].rel, &tree.files[to].rel);
        if let (Some(fa), Some(fb)) = (floor_of_file(a), floor_of_file(b)) {
            if fb > fa && !documented_upward(a, b) {
                violations.push(format!(
                    "{a} (floor {fa}) calls a method of {b} (floor {fb})"
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "method calls against the floors:\n{}",
        violations.join("\n")
    );
}

/// Circles between files not broken yet (issue 27), each by its files. A circle found must lie
/// within one of these; each must still be found (remove it once broken); none joins.
///
/// - `autograd`: types that hold each other. A `Node` holds its `SavedVariable`s and a
///   `SavedVariable` the node of the output it saved (`saved.rs` <-> `node/mod.rs`, as PyTorch's
///   `Node` and `SavedVariable` do through forward declarations); a `Node` holds its `Extras`
///   (hooks) and `extras.rs` implements the node's hook methods. (The release queue, the task
///   slot and a tensor's current edge moved below `autograd/mod.rs`, which left the circle
///   with `anomaly.rs` and `task_graph.rs`.)
/// - `python`: the `Tensor` class (`tensor.rs`) and the argument conversions (`convert.rs`)
///   call into bindings (hooks, nodes, subclasses, interop) that take and return `Tensor`s.
const KNOWN_CIRCLES: &[&[&str]] = &[
    &[
        "autograd/node/extras.rs",
        "autograd/node/mod.rs",
        "autograd/saved.rs",
    ],
    &[
        "python/binding.rs",
        "python/convert.rs",
        "python/functions.rs",
        "python/hooks.rs",
        "python/interop.rs",
        "python/node.rs",
        "python/out.rs",
        "python/subclass.rs",
        "python/tensor.rs",
        "python/tensor_reduce.rs",
    ],
];

/// No file uses, through any chain of files, a file that uses it: the files of `src/` form no
/// circle once the two documented upward edges are set aside, except the [`KNOWN_CIRCLES`],
/// which may only shrink. Paths count (`source_tree` says how they are read); tensor-method
/// calls do not (an op's derivative calls other ops, as the autograd -> ops edge does).
#[test]
fn no_circle_between_files() {
    let tree = SourceTree::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let n = tree.files.len();
    let mut next = vec![Vec::new(); n];
    for (from, to) in tree.path_edges() {
        if !documented_upward(&tree.files[from].rel, &tree.files[to].rel) {
            next[from].push(to);
        }
    }
    let reach: Vec<Vec<bool>> = (0..n)
        .map(|start| {
            let mut seen = vec![false; n];
            let mut stack = next[start].clone();
            while let Some(at) = stack.pop() {
                if !seen[at] {
                    seen[at] = true;
                    stack.extend(&next[at]);
                }
            }
            seen
        })
        .collect();
    let mut placed = vec![false; n];
    let mut new_circles = Vec::new();
    let mut known_found = vec![false; KNOWN_CIRCLES.len()];
    for a in 0..n {
        if placed[a] || !reach[a][a] {
            continue;
        }
        let members: Vec<usize> = (0..n).filter(|&b| reach[a][b] && reach[b][a]).collect();
        members.iter().for_each(|&m| placed[m] = true);
        let known = KNOWN_CIRCLES.iter().position(|files| {
            members
                .iter()
                .all(|&m| files.contains(&tree.files[m].rel.as_str()))
        });
        if let Some(k) = known {
            known_found[k] = true;
            continue;
        }
        let lines: Vec<String> = members
            .iter()
            .map(|&m| {
                let used: Vec<&str> = next[m]
                    .iter()
                    .filter(|t| members.contains(t))
                    .map(|&t| tree.files[t].rel.as_str())
                    .collect();
                format!("  {} -> {}", tree.files[m].rel, used.join(", "))
            })
            .collect();
        new_circles.push(lines.join("\n"));
    }
    assert!(
        new_circles.is_empty(),
        "{} circle(s) between files:\n{}",
        new_circles.len(),
        new_circles.join("\n\n")
    );
    for (files, found) in KNOWN_CIRCLES.iter().zip(known_found) {
        assert!(
            found,
            "no circle left among {files:?}: remove it from KNOWN_CIRCLES"
        );
    }
}

/// The reader sees the uses the tests above stand on: a re-exported item reached through its
/// module (`crate::autograd::Node` is `autograd/node.rs`'s), a `#[macro_export]` macro, a
/// `super::` path inside an inline module and a tensor-method call.
#[test]
fn the_file_reader_sees_re_exports_macros_and_method_calls() {
    let tree = SourceTree::read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    let index = |rel: &str| tree.index_of(rel).unwrap_or_else(|| panic!("no src/{rel}"));
    let paths = tree.path_edges();
    let methods = tree.method_edges();
    for (from, to) in [
        ("ops/nn/conv.rs", "autograd/mod.rs"),
        ("ops/pointwise/unary.rs", "autograd/node/mod.rs"),
        ("ops/pointwise/unary.rs", "core/dtype.rs"),
    ] {
        assert!(paths.contains(&(index(from), index(to))), "{from} -> {to}");
    }
    // `super::map_loop` in `cpu/kernels/mod.rs`'s inline `mod wide` is that file's own
    let inline_super = (index("cpu/kernels/mod.rs"), index("cpu/mod.rs"));
    assert!(!paths.contains(&inline_super));
    let lib = index("lib.rs");
    assert_eq!(
        tree.file_of(lib, "crate::with_float"),
        Some("core/dtype.rs")
    );
    assert_eq!(tree.file_of(lib, "crate::Tensor"), Some("core/tensor.rs"));
    assert_eq!(
        tree.file_of(index("ops/nn/conv.rs"), "crate::autograd::Node"),
        Some("autograd/node/mod.rs")
    );
    let to_dtype = (
        index("autograd/node/mod.rs"),
        index("ops/pointwise/unary.rs"),
    );
    assert!(methods.contains(&to_dtype), "autograd/node calls to_dtype");
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

/// A source file reads in one sitting: at most 800 lines.
#[test]
fn source_files_stay_short() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut long = Vec::new();
    for file in &files {
        let lines = std::fs::read_to_string(file).unwrap().lines().count();
        if lines > 800 {
            long.push(format!("{}: {lines} lines", relative(file, &src)));
        }
    }
    assert!(long.is_empty(), "files over 800 lines: {long:#?}");
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
