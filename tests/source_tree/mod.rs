//! The files of `src/` and which of them use which, read from the sources as text.
//!
//! Two kinds of use make an edge from one file to another:
//! - a **path**: `crate::…`, `super::…`, `self::…` or `child::…`, in a `use` statement or in
//!   code, resolved to the file that defines the item, through `pub use` re-exports and
//!   `#[macro_export]` macros (a `pub use` itself is namespace plumbing, not a use);
//! - a **method call** on a tensor: `.name(` or `Tensor::name(`, where `name` is defined in an
//!   `impl Tensor` block (or a row of the pointwise tables) of exactly one file, is no method of
//!   anything else in the crate, and is not a method of the standard library's numbers,
//!   slices, iterators and strings (those calls are on other receivers).
//!
//! Comments and `#[cfg(test)]` modules are left out before reading.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// One `.rs` file of `src/`.
pub struct SourceFile {
    /// The path below `src/`, with forward slashes: `autograd/node.rs`.
    pub rel: String,
    /// The module it is: `["autograd", "node"]` (`mod.rs` is its folder, `lib.rs` is `[]`).
    pub module: Vec<String>,
    /// The code without comments and test modules.
    pub code: String,
}

/// Every file of `src/` and the edges between them.
pub struct SourceTree {
    /// The files, sorted by path.
    pub files: Vec<SourceFile>,
    by_module: HashMap<Vec<String>, usize>,
    /// Per file: the names it defines (`fn`, `struct`, `enum`, `trait`, `type`, `const`, …).
    defines: Vec<BTreeSet<String>>,
    /// Per file: `pub use` re-exports, name -> path (as written, from that file's module).
    reexports: Vec<BTreeMap<String, Vec<String>>>,
    /// Per file: the modules of its `pub use module::*` re-exports.
    globs: Vec<Vec<Vec<String>>>,
}

/// Methods of the standard library's numbers, slices, `Vec`, iterators, `Option`, strings and
/// locks that `Tensor` also has: a call by one of these names is not read as a tensor's.
const STD_METHODS: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "all",
    "any",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "ceil",
    "clamp",
    "clone",
    "contains",
    "copy_from",
    "cos",
    "cosh",
    "count",
    "exp",
    "exp2",
    "expm1",
    "fill",
    "floor",
    "get",
    "hypot",
    "index",
    "is_empty",
    "iter",
    "len",
    "ln",
    "log",
    "log10",
    "log2",
    "map",
    "max",
    "min",
    "product",
    "read",
    "repeat",
    "rev",
    "round",
    "sin",
    "sinh",
    "sort",
    "split",
    "sqrt",
    "sum",
    "take",
    "tan",
    "tanh",
    "trunc",
    "write",
    "zip",
]; // fmt: skip

impl SourceTree {
    /// Reads every `.rs` file below `src`.
    pub fn read(src: &Path) -> SourceTree {
        let mut paths = Vec::new();
        rust_files(src, &mut paths);
        paths.sort();
        let files: Vec<SourceFile> = paths
            .iter()
            .map(|path| {
                let rel = path
                    .strip_prefix(src)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let mut module: Vec<String> = rel
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(str::to_string)
                    .collect();
                if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                    module.pop();
                }
                let code =
                    without_tests(&without_comments(&std::fs::read_to_string(path).unwrap()));
                SourceFile { rel, module, code }
            })
            .collect();
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let mut tree = SourceTree {
            defines: files.iter().map(|f| defined_names(&f.code)).collect(),
            reexports: Vec::new(),
            globs: Vec::new(),
            files,
            by_module,
        };
        for file in &tree.files {
            let mut named = BTreeMap::new();
            let mut globs = Vec::new();
            for (public, start) in use_statements(&file.code) {
                if !public {
                    continue;
                }
                for (path, alias) in parse_tree(file.code.as_bytes(), start) {
                    match path.last().map(String::as_str) {
                        Some("*") => globs.push(path[..path.len() - 1].to_vec()),
                        Some(last) => {
                            named.insert(alias.unwrap_or_else(|| last.to_string()), path);
                        }
                        None => {}
                    }
                }
            }
            tree.reexports.push(named);
            tree.globs.push(globs);
        }
        tree
    }

    /// The index of the file with this path below `src/`.
    pub fn index_of(&self, rel: &str) -> Option<usize> {
        self.files.iter().position(|f| f.rel == rel)
    }

    /// The file a path written in file `from` names: `crate::Tensor` is `core/tensor.rs`.
    pub fn file_of(&self, from: usize, path: &str) -> Option<&str> {
        let segments: Vec<String> = path.split("::").map(str::to_string).collect();
        let to = self.resolve(from, &segments, 0, 0)?;
        Some(&self.files[to].rel)
    }

    /// The edges made by paths: (user, used), each a file index.
    pub fn path_edges(&self) -> BTreeSet<(usize, usize)> {
        let mut edges = BTreeSet::new();
        for (from, file) in self.files.iter().enumerate() {
            let bytes = file.code.as_bytes();
            let inline = inline_modules(&file.code);
            let public_uses: Vec<(usize, usize)> = use_statements(&file.code)
                .into_iter()
                .filter(|(public, _)| *public)
                .map(|(_, start)| (start, statement_end(bytes, start)))
                .collect();
            for start in path_starts(&file.code) {
                if public_uses.iter().any(|(s, e)| (*s..*e).contains(&start)) {
                    continue;
                }
                let first = ident_at(bytes, start);
                let local = ["crate", "super", "self"].contains(&first.as_str())
                    || self.by_module.contains_key(&child(&file.module, &first));
                if !local {
                    continue;
                }
                let depth = inline.iter().filter(|span| span.contains(&start)).count();
                for (path, _) in parse_tree(bytes, start) {
                    if let Some(to) = self.resolve(from, &path, depth, 0) {
                        if to != from {
                            edges.insert((from, to));
                        }
                    }
                }
            }
        }
        edges
    }

    /// The edges made by calls of tensor methods: (caller, defining file).
    pub fn method_edges(&self) -> BTreeSet<(usize, usize)> {
        let mut owners: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        let mut elsewhere = BTreeSet::new();
        for (i, file) in self.files.iter().enumerate() {
            let (tensor, other) = methods(&file.code);
            for name in tensor {
                owners.entry(name).or_default().insert(i);
            }
            elsewhere.extend(other);
        }
        let owner: BTreeMap<String, usize> = owners
            .into_iter()
            .filter(|(name, files)| {
                files.len() == 1
                    && !elsewhere.contains(name)
                    && !STD_METHODS.contains(&name.as_str())
            })
            .map(|(name, files)| (name, *files.iter().next().unwrap()))
            .collect();
        let mut edges = BTreeSet::new();
        for (from, file) in self.files.iter().enumerate() {
            let bytes = file.code.as_bytes();
            for (at, _) in file.code.match_indices(['.', ':']) {
                let call = match bytes[at] {
                    b'.' => true,
                    _ => {
                        at >= 7
                            && &bytes[at - 7..at] == b"Tensor:"
                            && (at == 7 || !is_ident_byte(bytes[at - 8]))
                    }
                };
                if !call {
                    continue;
                }
                let name = ident_at(bytes, at + 1);
                let after = bytes.get(at + 1 + name.len()).copied();
                if matches!(after, Some(b'(') | Some(b':')) {
                    if let Some(&to) = owner.get(&name) {
                        if to != from {
                            edges.insert((from, to));
                        }
                    }
                }
            }
        }
        edges
    }

    /// The file an item path names, starting in file `from` (`depth` inline modules deep).
    fn resolve(&self, from: usize, path: &[String], depth: usize, hops: usize) -> Option<usize> {
        if hops > 8 {
            return None;
        }
        let mut module = self.files[from].module.clone();
        let mut rest = path;
        let mut inline = depth;
        match rest.first().map(String::as_str) {
            Some("crate") => {
                module.clear();
                rest = &rest[1..];
            }
            Some("self") => rest = &rest[1..],
            _ => {}
        }
        while rest.first().is_some_and(|s| s == "super") {
            if inline > 0 {
                inline -= 1;
            } else {
                module.pop()?;
            }
            rest = &rest[1..];
        }
        while let Some(next) = rest.first() {
            if !self.by_module.contains_key(&child(&module, next)) {
                break;
            }
            module.push(next.clone());
            rest = &rest[1..];
        }
        let file = *self.by_module.get(&module)?;
        let Some(name) = rest.first() else {
            return Some(file);
        };
        if name == "*" || self.defines[file].contains(name) {
            return Some(file);
        }
        if let Some(target) = self.reexports[file].get(name) {
            let mut through: Vec<String> = target.clone();
            through.extend(rest[1..].iter().cloned());
            return self.resolve(file, &through, 0, hops + 1);
        }
        for glob in &self.globs[file] {
            if let Some(source) = self.resolve(file, glob, 0, hops + 1) {
                if self.defines[source].contains(name) {
                    return Some(source);
                }
            }
        }
        if module.is_empty() {
            // a `#[macro_export]` macro stands at the crate's root
            let macro_rules = format!("macro_rules! {name}");
            if let Some(i) = self
                .files
                .iter()
                .position(|f| f.code.contains(&macro_rules))
            {
                return Some(i);
            }
        }
        Some(file)
    }
}

/// Every `.rs` file below `dir`, appended to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn child(module: &[String], name: &str) -> Vec<String> {
    let mut path = module.to_vec();
    path.push(name.to_string());
    path
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The identifier starting at `at` (empty if none does).
fn ident_at(bytes: &[u8], at: usize) -> String {
    let end = (at..bytes.len())
        .find(|&i| !is_ident_byte(bytes[i]))
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[at..end]).into_owned()
}

/// Lines with their `//` comments cut off (a `//` inside a string on a code line is rare
/// enough here to be cut too).
fn without_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    for line in source.lines() {
        let code = match line.find("//") {
            Some(at) if at == 0 || line.as_bytes()[at - 1] != b':' => &line[..at],
            _ => line,
        };
        out.push_str(code);
        out.push('\n');
    }
    out
}

/// The byte just after the brace that closes the one at `open`.
fn closing_brace(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (i, &b) in bytes.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    bytes.len()
}

/// `source` without its `#[cfg(test)] mod … { … }` blocks.
fn without_tests(source: &str) -> String {
    let mut out = source.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let bytes = out.as_bytes();
        let rest = out[at..].trim_start_matches("#[cfg(test)]").trim_start();
        let end = if rest.starts_with("mod ") {
            let open = at + out[at..].find('{').unwrap();
            closing_brace(bytes, open)
        } else {
            at + "#[cfg(test)]".len()
        };
        out.replace_range(at..end, "");
    }
    out
}

/// The byte spans of the inline `mod name { … }` blocks.
fn inline_modules(code: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = code.as_bytes();
    let mut spans = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident_byte(bytes[at - 1]) {
            continue;
        }
        let name = ident_at(bytes, at + 4);
        let after = at + 4 + name.len();
        if !name.is_empty() && code[after..].trim_start().starts_with('{') {
            let open = after + code[after..].find('{').unwrap();
            spans.push(open..closing_brace(bytes, open));
        }
    }
    spans
}

/// The `use` statements: (whether it re-exports, where its path starts).
fn use_statements(code: &str) -> Vec<(bool, usize)> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    for (at, _) in code.match_indices("use ") {
        if at > 0 && is_ident_byte(bytes[at - 1]) {
            continue;
        }
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let before = code[line_start..at].trim();
        if before.is_empty() || before.starts_with("pub") {
            found.push((before.starts_with("pub"), at + 4));
        }
    }
    found
}

/// The byte after the `;` that ends the statement starting at `start`.
fn statement_end(bytes: &[u8], start: usize) -> usize {
    (start..bytes.len())
        .find(|&i| bytes[i] == b';')
        .map_or(bytes.len(), |i| i + 1)
}

/// Where a path that may be local starts: an identifier followed by `::`, not itself the tail
/// of a longer path.
fn path_starts(code: &str) -> Vec<usize> {
    let bytes = code.as_bytes();
    let mut starts = Vec::new();
    for (at, _) in code.match_indices("::") {
        let begin = (0..at)
            .rev()
            .find(|&i| !is_ident_byte(bytes[i]))
            .map_or(0, |i| i + 1);
        let head_of_path = begin == 0 || bytes[begin - 1] != b':';
        if begin < at && head_of_path && !bytes[begin].is_ascii_digit() {
            starts.push(begin);
        }
    }
    starts.dedup();
    starts
}

/// The paths of a use tree or a path expression starting at `start`: `a::b::{c, d::e as f}`
/// gives `a::b::c` and `a::b::d::e` (alias `f`).
fn parse_tree(bytes: &[u8], start: usize) -> Vec<(Vec<String>, Option<String>)> {
    let mut out = Vec::new();
    parse_subtree(bytes, start, Vec::new(), &mut out);
    out
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len() && bytes[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

fn parse_subtree(
    bytes: &[u8],
    mut i: usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) -> usize {
    loop {
        i = skip_space(bytes, i);
        match bytes.get(i) {
            Some(b'{') => {
                i += 1;
                loop {
                    i = parse_subtree(bytes, i, prefix.clone(), out);
                    i = skip_space(bytes, i);
                    match bytes.get(i) {
                        Some(b',') => i += 1,
                        Some(b'}') => return i + 1,
                        _ => return i,
                    }
                    if bytes.get(skip_space(bytes, i)) == Some(&b'}') {
                        return skip_space(bytes, i) + 1;
                    }
                }
            }
            Some(b'*') => {
                prefix.push("*".to_string());
                out.push((prefix, None));
                return i + 1;
            }
            Some(&b) if is_ident_byte(b) => {
                let name = ident_at(bytes, i);
                i += name.len();
                prefix.push(name);
                if bytes[i..].starts_with(b"::")
                    && bytes
                        .get(i + 2)
                        .is_some_and(|&b| is_ident_byte(b) || b == b'{' || b == b'*')
                {
                    i += 2;
                    continue;
                }
                let after = skip_space(bytes, i);
                let alias = bytes[after..]
                    .starts_with(b"as ")
                    .then(|| ident_at(bytes, skip_space(bytes, after + 3)));
                out.push((prefix, alias));
                return i;
            }
            _ => return i,
        }
    }
}

/// The names a file defines with `fn`, `struct`, `enum`, `trait`, `type`, `const`, `static`,
/// `union` or `macro_rules!`.
fn defined_names(code: &str) -> BTreeSet<String> {
    let bytes = code.as_bytes();
    let mut names = BTreeSet::new();
    for keyword in [
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "union ",
        "macro_rules! ",
    ] {
        for (at, _) in code.match_indices(keyword) {
            if at == 0 || !is_ident_byte(bytes[at - 1]) {
                let name = ident_at(bytes, at + keyword.len());
                if !name.is_empty() {
                    names.insert(name);
                }
            }
        }
    }
    names
}

/// The methods a file gives `Tensor` (in `impl Tensor` blocks, and the rows of the pointwise
/// tables: `name, name_, "NodeName"`), and the names of every other method it defines.
fn methods(code: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let bytes = code.as_bytes();
    let mut tensor_blocks = Vec::new();
    for (at, _) in code.match_indices("impl") {
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let header = &code[at..at + code[at..].find(['{', ';']).unwrap_or(0)];
        if code[line_start..at].trim().is_empty()
            && header.trim_end().ends_with(" Tensor")
            && !header.contains(" for ")
        {
            let open = at + header.len();
            tensor_blocks.push(open..closing_brace(bytes, open));
        }
    }
    let mut tensor = BTreeSet::new();
    let mut other = BTreeSet::new();
    for (at, _) in code.match_indices("fn ") {
        if at > 0 && is_ident_byte(bytes[at - 1]) {
            continue;
        }
        let name = ident_at(bytes, at + 3);
        let signature = &code[at..at + code[at..].find(['{', ';']).unwrap_or(0)];
        if !signature.contains("self") {
            if tensor_blocks.iter().any(|b| b.contains(&at)) {
                tensor.insert(name); // `Tensor::name(…)`
            }
            continue;
        }
        if tensor_blocks.iter().any(|b| b.contains(&at)) {
            tensor.insert(name);
        } else {
            other.insert(name);
        }
    }
    for line in code.lines() {
        let mut parts = line.trim().splitn(3, ", ");
        if let (Some(name), Some(twin), Some(rest)) = (parts.next(), parts.next(), parts.next()) {
            if rest.starts_with('"') && twin.ends_with('_') && name.bytes().all(is_ident_byte) {
                tensor.insert(name.to_string());
            }
        }
    }
    (tensor, other)
}
