//! Build script: the commit the engine is built from, for its UCI `id name` and XBoard
//! `myname` (two builds then differ in a GUI's engine list and in PGN headers).

use std::process::Command;

fn main() {
    // The commit when built from a git checkout; nothing otherwise (a source archive).
    let commit = Command::new("git")
        .args(["rev-parse", "--short=7", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit()));
    let suffix = commit.map(|c| format!(" ({c})")).unwrap_or_default();
    println!("cargo:rustc-env=FAIRYLAB_BUILD={suffix}");
    // A new commit or branch changes HEAD or the ref it names.
    let git_dir = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| std::path::PathBuf::from(s.trim()));
    if let Some(dir) = git_dir {
        println!("cargo:rerun-if-changed={}", dir.join("HEAD").display());
        if let Ok(head) = std::fs::read_to_string(dir.join("HEAD")) {
            if let Some(reference) = head.trim().strip_prefix("ref: ") {
                println!("cargo:rerun-if-changed={}", dir.join(reference).display());
            }
        }
        println!("cargo:rerun-if-changed={}", dir.join("packed-refs").display());
    }
    println!("cargo:rerun-if-changed=build.rs");
}
