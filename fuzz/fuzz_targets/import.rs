//! Import of any JSON Lines text into a real store: stored whole or refused whole with a message,
//! never a panic, and the store still passes its integrity check.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use synapse::secrets::Secrets;
use synapse::store::{Scope, Store};

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
}

fn fixture() -> &'static Mutex<Fixture> {
    static FIXTURE: OnceLock<Mutex<Fixture>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::open(dir.path()).expect("a new store");
        Mutex::new(Fixture { _dir: dir, store })
    })
}

fuzz_target!(|text: &str| {
    let mut fixture = fixture().lock().expect("one run at a time");
    let before = fixture.store.count_live(&Scope::project("fuzz")).expect("a count");
    if fixture
        .store
        .import(text, &Scope::project("fuzz"), Secrets::Mask)
        .is_err()
    {
        let after = fixture.store.count_live(&Scope::project("fuzz")).expect("a count");
        assert_eq!(before, after, "a refused import stores nothing");
    }
});
