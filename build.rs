//! Names the judging version: a digest of every source file under `src/domain/`, where each
//! answer is classified and checked. `--resume` and `--state` carry a record only when the
//! payverify that judged it had the same judging version (see `domain::seal`), so a change
//! to how any answer is judged makes an upgraded payverify ask again rather than carry a
//! verdict it would not give. Any edit there counts, a comment included: a needless ask
//! again costs one request, a missed change could carry a wrong exit 0.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

use siphasher::sip128::{Hasher128, SipHasher13};

fn main() {
    let root = Path::new("src/domain");
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut hasher = SipHasher13::new();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        // A file that cannot be read fails the build: a version made without it would say
        // nothing of what it judges.
        let text =
            std::fs::read(file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let name = file.to_string_lossy().replace('\\', "/");
        for part in [name.as_bytes(), &text] {
            hasher.write_u64(part.len() as u64);
            hasher.write(part);
        }
    }
    println!("cargo:rerun-if-changed={}", root.display());
    let digest = hasher.finish128().as_u128();
    println!("cargo:rustc-env=PAYVERIFY_JUDGING={digest:032x}");
}

/// Every `.rs` file under `dir`, at any depth.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}
