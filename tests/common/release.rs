//! The release archive of the binaries the tests run (`super::bin_dir`), in `dist`'s layout
//! (`synapse-TARGET.tar.xz` holding `synapse-TARGET/`, and its `.sha256`), for the tests that
//! install it the way the plugin's launchers do (bin/synapse-fetch), served on 127.0.0.1.

use std::fs;
use std::process::Command;
use std::sync::OnceLock;

/// The binaries the archive holds.
pub const BINARIES: [&str; 7] = [
    "synapse",
    "synapse-mcp",
    "synapse-session-start",
    "synapse-prompt-submit",
    "synapse-stop",
    "synapse-compact",
    "synapse-instructions-loaded",
];

/// The host's target triple, as bin/synapse-fetch names it from `uname`.
pub fn target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-gnu",
        ("linux", "aarch64") => "aarch64-unknown-linux-gnu",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        other => panic!("no release archive is made for {other:?}"),
    }
}

/// The archive's file name.
pub fn name() -> String {
    format!("synapse-{}.tar.xz", target())
}

/// The archive and its `.sha256` text; packed once per test binary (stripped, quick
/// compression: the test binaries carry debug information).
pub fn archive() -> &'static (Vec<u8>, String) {
    static ARCHIVE: OnceLock<(Vec<u8>, String)> = OnceLock::new();
    ARCHIVE.get_or_init(|| {
        let stage = tempfile::tempdir().unwrap();
        let folder_name = format!("synapse-{}", target());
        let folder = stage.path().join(&folder_name);
        fs::create_dir_all(&folder).unwrap();
        let built = super::bin_dir();
        for bin in BINARIES {
            let status = Command::new("strip")
                .arg("-o")
                .arg(folder.join(bin))
                .arg(built.join(bin))
                .status()
                .expect("run strip");
            assert!(status.success(), "strip {bin} failed");
        }
        let file = stage.path().join(name());
        let status = Command::new("tar")
            .env("XZ_OPT", "-0")
            .arg("-cJf")
            .arg(&file)
            .arg("-C")
            .arg(stage.path())
            .arg(&folder_name)
            .status()
            .expect("run tar");
        assert!(status.success(), "tar failed");
        let out = Command::new("sha256sum").arg(&file).output().unwrap();
        let hash = String::from_utf8(out.stdout).unwrap();
        let hash = hash.split_whitespace().next().unwrap().to_owned();
        (fs::read(&file).unwrap(), format!("{hash} *{}\n", name()))
    })
}
