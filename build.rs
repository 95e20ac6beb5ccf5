//! Build script: with the `python` feature, writes the registration of every Python binding.
//!
//! Note [Bindings register themselves]: a `#[pyfunction]` or `#[pyclass]` written in a file of
//! `src/python/` is added to `ferrograd._core` by the code this script generates into
//! `$OUT_DIR/bindings.rs` (included by `src/python/mod.rs`), so no list of bindings is kept by
//! hand. The script reads the sources as `cargo fmt` writes them: an attribute line
//! `#[pyfunction]` (or `#[pyclass...]`) before the item's `fn` (or `struct`/`enum`) line; an
//! inline `mod name {` opens a module that the `}` at its own indentation closes. A
//! `macro_rules!` whose body holds a `#[pyfunction]` makes a binding per call, named by the
//! call's first argument (`activation!(selu, ...)`); the table macros, called through
//! `unary_table!(bind_unary_ops)`, register the functions they generate themselves. A binding
//! must be visible to the module's root (`pub(crate)` or `pub`), and two bindings may not take
//! the same Python name, nor the name of a table row's function: the script stops the build,
//! naming the file and the item.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What kind of binding an item is.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Class,
    Function,
}

/// One binding found in the sources.
struct Binding {
    kind: Kind,
    /// The Rust path from `crate::python`, as `functions::pow`.
    path: String,
    /// The name Python sees (`#[pyo3(name = ...)]` or `#[pyclass(name = ...)]`, else the item's).
    python_name: String,
    /// `file:line`, for the build's error messages.
    origin: String,
}

/// An open brace block the scanner tracks: its indentation and what it is.
struct Block {
    indent: usize,
    module: Option<String>,
    /// The name of the `macro_rules!` this block defines, if it defines one.
    macro_name: Option<String>,
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/python");
    if std::env::var_os("CARGO_FEATURE_PYTHON").is_none() {
        return;
    }
    let dir = Path::new("src/python");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("src/python is readable")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut bindings = Vec::new();
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        let module = if stem == "mod" {
            Vec::new()
        } else {
            vec![stem]
        };
        let text = std::fs::read_to_string(file).expect("a readable source file");
        scan(&file.display().to_string(), &text, module, &mut bindings);
    }
    for table in TABLES {
        println!("cargo:rerun-if-changed={table}");
        let text = std::fs::read_to_string(table).expect("a readable table file");
        for (line, name) in table_rows(&text) {
            bindings.push(Binding {
                kind: Kind::Function,
                path: String::new(),
                python_name: name,
                origin: format!("{table}:{line} (a table row's torch function)"),
            });
        }
    }
    check_unique(&bindings);
    bindings.retain(|b| !b.path.is_empty());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bindings.rs");
    std::fs::write(out, render(&bindings)).expect("OUT_DIR is writable");
}

/// Adds the bindings of one file (whose module path from `crate::python` is `module`).
fn scan(file: &str, text: &str, module: Vec<String>, bindings: &mut Vec<Binding>) {
    let mut blocks: Vec<Block> = Vec::new();
    let mut binding_macros: Vec<String> = Vec::new();
    let mut pending: Option<(Kind, String)> = None; // the kind and the attribute text so far
    let mut in_call = false; // inside a binding macro's call, before its first argument
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.starts_with('}') && blocks.last().is_some_and(|b| b.indent == indent) {
            blocks.pop();
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("macro_rules! ") {
            blocks.push(Block {
                indent,
                module: None,
                macro_name: Some(name.trim_end_matches(" {").to_string()),
            });
            continue;
        }
        if let Some(name) = blocks.iter().find_map(|b| b.macro_name.as_ref()) {
            if trimmed.starts_with("#[pyfunction") && !binding_macros.contains(name) {
                binding_macros.push(name.clone());
            }
            continue;
        }
        if let Some(name) = inline_module(trimmed) {
            blocks.push(Block {
                indent,
                module: Some(name),
                macro_name: None,
            });
            continue;
        }
        if trimmed.starts_with("#[pyfunction") {
            pending = Some((Kind::Function, String::new()));
        } else if trimmed.starts_with("#[pyclass") {
            pending = Some((Kind::Class, String::new()));
        } else if binding_macros
            .iter()
            .any(|m| trimmed.starts_with(&format!("{m}!(")))
        {
            in_call = true;
        }
        if in_call {
            let arguments = trimmed.split_once('(').map_or(trimmed, |(_, rest)| rest);
            let name: String = arguments
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                let origin = format!("{file}:{}", number + 1);
                bindings.push(binding(
                    Kind::Function,
                    &module,
                    &blocks,
                    name,
                    None,
                    origin,
                ));
                in_call = false;
            }
            continue;
        }
        let Some((kind, attributes)) = pending.as_mut() else {
            continue;
        };
        let keyword = match kind {
            Kind::Function => item_name(trimmed, &["fn "]),
            Kind::Class => item_name(trimmed, &["struct ", "enum "]),
        };
        let Some((name, public)) = keyword else {
            attributes.push_str(trimmed);
            continue;
        };
        let origin = format!("{file}:{}", number + 1);
        assert!(
            public,
            "{origin}: the binding `{name}` must be `pub(crate)` to be registered \
             (Note [Bindings register themselves] in build.rs)"
        );
        let python_name = named(attributes);
        bindings.push(binding(*kind, &module, &blocks, name, python_name, origin));
        pending = None;
    }
}

/// The binding of the item `name` written inside `blocks` of the file module `module`.
fn binding(
    kind: Kind,
    module: &[String],
    blocks: &[Block],
    name: String,
    python_name: Option<String>,
    origin: String,
) -> Binding {
    let mut path: Vec<String> = module.to_vec();
    path.extend(blocks.iter().filter_map(|b| b.module.clone()));
    path.push(name.clone());
    Binding {
        kind,
        path: path.join("::"),
        python_name: python_name.unwrap_or(name),
        origin,
    }
}

/// The name of an inline module opened on this line (`mod name {`), if it opens one.
fn inline_module(trimmed: &str) -> Option<String> {
    let rest = trimmed.strip_suffix(" {")?;
    let rest = rest
        .strip_prefix("pub(crate) ")
        .or_else(|| rest.strip_prefix("pub "))
        .unwrap_or(rest);
    let name = rest.strip_prefix("mod ")?;
    name.chars()
        .all(|c| c.is_alphanumeric() || c == '_')
        .then(|| name.to_string())
}

/// The item's name and whether it is visible to the crate, if this line declares one of the
/// `keywords` (`fn `, `struct `...).
fn item_name(trimmed: &str, keywords: &[&str]) -> Option<(String, bool)> {
    if trimmed.starts_with("#[") || trimmed.starts_with("//") {
        return None;
    }
    keywords.iter().find_map(|keyword| {
        let at = trimmed.find(keyword)?;
        let before = &trimmed[..at];
        if !before.is_empty() && !before.ends_with(' ') {
            return None;
        }
        let name: String = trimmed[at + keyword.len()..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        Some((name, before.starts_with("pub")))
    })
}

/// The `name = "..."` of the attributes read before the item, if they give one.
fn named(attributes: &str) -> Option<String> {
    let mut rest = attributes;
    while let Some(at) = rest.find("name = \"") {
        let preceded_by_word = rest[..at]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        let value = &rest[at + "name = \"".len()..];
        if !preceded_by_word {
            return value.split('"').next().map(str::to_string);
        }
        rest = value;
    }
    None
}

/// The derivative tables whose rows each make a `torch.xxx` function of their own (registered
/// by the table macros, after the bindings this script adds): a binding may not take the name
/// of a row, or the row's function would silently replace it.
const TABLES: &[&str] = &["src/ops/pointwise/unary.rs", "src/ops/pointwise/binary.rs"];

/// The rows of a derivative table, `name, name_, "NodeName" ...`: (line number, name).
fn table_rows(text: &str) -> Vec<(usize, String)> {
    let mut rows = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let mut parts = line.trim().splitn(3, ", ");
        if let (Some(name), Some(twin), Some(rest)) = (parts.next(), parts.next(), parts.next()) {
            let ident = |s: &str| {
                !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            };
            if ident(name) && twin == format!("{name}_") && rest.starts_with('"') {
                rows.push((number + 1, name.to_string()));
            }
        }
    }
    rows
}

/// Stops the build when two bindings take the same Python name.
fn check_unique(bindings: &[Binding]) {
    for (i, a) in bindings.iter().enumerate() {
        if let Some(b) = bindings[..i]
            .iter()
            .find(|b| b.python_name == a.python_name)
        {
            panic!(
                "{} and {} both bind the Python name `{}`",
                b.origin, a.origin, a.python_name
            );
        }
    }
}

/// The generated Rust: one function adding every class, then every function.
fn render(bindings: &[Binding]) -> String {
    let mut out = String::from(
        "// Generated by build.rs (Note [Bindings register themselves]); do not edit.\n\n\
         /// Adds every `#[pyclass]` and `#[pyfunction]` of `src/python/` to the module.\n\
         pub(crate) fn add_bindings(m: &Bound<'_, PyModule>) -> PyResult<()> {\n",
    );
    for kind in [Kind::Class, Kind::Function] {
        for b in bindings.iter().filter(|b| b.kind == kind) {
            let path = &b.path;
            let _ = match kind {
                Kind::Class => writeln!(out, "    m.add_class::<{path}>()?;"),
                Kind::Function => writeln!(
                    out,
                    "    m.add_function(pyo3::wrap_pyfunction!({path}, m)?)?;"
                ),
            };
        }
    }
    out.push_str("    Ok(())\n}\n");
    out
}
