//! Embeds every file of `static/` in the binary (tablet, God console and audit
//! pages, and the variant scripts other modules add there), so `eleusis serve`
//! needs nothing beside it. Generates `OUT_DIR/static_assets.rs`, a table of
//! `(file name, bytes)` that `src/web/assets.rs` includes.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The checkout is read when the script runs, not with `env!` when it is
    // compiled, and the watched paths are relative to the package: a build script
    // compiled for one checkout can be reused by another that shares its target
    // directory, and must then embed (and watch) that checkout's pages.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .expect("cargo sets CARGO_MANIFEST_DIR for build scripts");
    let dir = Path::new(&manifest_dir).join("static");
    println!("cargo:rerun-if-changed=static");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().map(|t| t.is_file()).unwrap_or(false))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_else(|e| panic!("cannot read the page assets in {}: {e}", dir.display()));
    // An empty table would build a service whose pages all answer 404: refuse it.
    if !names.iter().any(|n| n == "tablet.html") {
        panic!(
            "{} has no tablet.html: the tablet page is missing",
            dir.display()
        );
    }
    names.sort();
    let mut code = String::from(
        "/// Every file of `static/`, by name.\npub static ASSETS: &[(&str, &[u8])] = &[\n",
    );
    for name in &names {
        let path = dir.join(name);
        println!("cargo:rerun-if-changed=static/{name}");
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    if let Err(e) = std::fs::write(Path::new(&out).join("static_assets.rs"), code) {
        panic!("cannot write the embedded asset table: {e}");
    }
}
